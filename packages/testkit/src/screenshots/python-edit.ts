import type { PictureEdit } from './diff-screenshot.js';

/** The edit the pictures of Vim and Emacs show: a small Python module gets types and a case. */
export const PYTHON_TEMPERATURE_EDIT: PictureEdit = {
  file: 'temperature.py',
  before: `def to_fahrenheit(celsius):
    return celsius * 9 / 5 + 32


def describe(celsius):
    if celsius < 0:
        return "freezing"
    if celsius < 20:
        return "mild"
    return "warm"
`,
  after: `def to_fahrenheit(celsius: float) -> float:
    """Converts degrees Celsius to degrees Fahrenheit."""
    return celsius * 9 / 5 + 32


def describe(celsius: float) -> str:
    if celsius != celsius:
        raise ValueError("not a temperature")
    if celsius < 0:
        return "freezing"
    if celsius < 20:
        return "mild"
    if celsius < 30:
        return "warm"
    return "hot"
`,
};
