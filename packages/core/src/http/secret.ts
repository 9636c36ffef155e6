import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh secret: 256 bits from the CSPRNG, URL-safe. */
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Compares a candidate with the secret in constant time. Both sides are hashed first, so
 * neither the content nor the length of the secret leaks through timing.
 */
export function secretMatches(candidate: string, secret: string): boolean {
  const a = createHash('sha256').update(candidate).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}
