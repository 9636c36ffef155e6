;;; tandem.el --- Companion for Gemini CLI, Qwen Code, Claude Code  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;; Author: The Tandem authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.2"))
;; Keywords: tools, convenience
;; URL: https://github.com/OWNER/tandem

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Tandem makes the IDE mode of Gemini CLI, Qwen Code and Claude Code
;; work in Emacs: a CLI started from Emacs (or in any terminal inside the
;; project) sees the file you are looking at, point and the region, and
;; shows each edit it proposes as a diff in Emacs, to accept with
;; `C-c C-c' or reject with `C-c C-k'.
;;
;; Turn on `tandem-mode'.  It starts the sidecar, `tandem bridge', for
;; the current project and puts the variables the CLIs look for into
;; `process-environment', so `M-x shell', `term', `vterm', `eat' and
;; `compile' started afterwards connect.  `M-x tandem-run-gemini',
;; `M-x tandem-run-qwen' and `M-x tandem-run-claude' start a CLI in a
;; terminal buffer; `M-x tandem-send-to-claude' puts the region's lines,
;; or the file, in Claude Code's prompt;
;; `M-x tandem-status' says what is connected, and what stops a CLI from
;; showing its edits here (IDE mode off, an approval mode that writes
;; without asking), with the fix.  `M-x tandem-doctor' explains whether a
;; CLI started in the project connects; `M-x tandem-env' copies the line
;; that connects a CLI in a terminal outside Emacs.
;;
;; The sidecar is the `tandem' command (Node.js 20 or newer): loaded from
;; a clone of the repository, the package runs the one `npm run build' or
;; `npm run build:sidecar' built there; else the `tandem' on `exec-path'.
;;
;; Tested on Emacs 28.2 (Debian 12), 30.1 (Debian 13) and the newest
;; Emacs Debian unstable carries (30.2 in November 2026).

;;; Code:

(require 'tandem-session)
(require 'tandem-status)
(require 'tandem-doctor)
(require 'tandem-terminal)

(defgroup tandem nil
  "IDE mode of Gemini CLI and Qwen Code in Emacs."
  :group 'tools
  :prefix "tandem-")

(defcustom tandem-mode-line-format '(:eval (tandem-mode-line))
  "What `tandem-mode' shows in the mode line."
  :type 'sexp
  :risky t)

(defun tandem--kill-emacs ()
  "Stop the session as Emacs exits."
  (when tandem--session
    (tandem-session-stop tandem--session)
    (setq tandem--session nil)))

;;;###autoload
(define-minor-mode tandem-mode
  "Let Gemini CLI and Qwen Code connect to this Emacs in IDE mode.
Turning it on starts the sidecar for the current project (its
`project.el' root, else `default-directory'); terminals started
afterwards connect.  Turning it off, or quitting Emacs, stops the
sidecar: open diffs are rejected and the discovery files removed."
  :global t
  :group 'tandem
  :lighter tandem-mode-line-format
  (when tandem--session
    (tandem-session-stop tandem--session)
    (setq tandem--session nil))
  (if tandem-mode
      (progn
        (setq tandem--session (tandem-session-start))
        (add-hook 'kill-emacs-hook #'tandem--kill-emacs))
    (remove-hook 'kill-emacs-hook #'tandem--kill-emacs)))

(defun tandem--run (name command)
  "Run the shell COMMAND as NAME in a terminal, with `tandem-mode' on."
  (unless tandem-mode
    (tandem-mode 1))
  (let ((session tandem--session)
        (deadline (+ (float-time) 10)))
    ;; The CLI looks for the editor once, at its start: wait until Tandem runs.
    (while (and (eq (tandem-session-state session) 'starting) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (eq (tandem-session-state session) 'running)
      (user-error "Tandem is not running: %s" (or (tandem-session-error session) "see M-x tandem-status")))
    (tandem-terminal-run name command (tandem-session-folder session))))

;;;###autoload
(defun tandem-run-gemini ()
  "Start Gemini CLI in a terminal buffer, connected to this Emacs."
  (interactive)
  (tandem--run "gemini" tandem-gemini-command))

;;;###autoload
(defun tandem-run-qwen ()
  "Start Qwen Code in a terminal buffer, connected to this Emacs."
  (interactive)
  (tandem--run "qwen" tandem-qwen-command))

;;;###autoload
(defun tandem-run-claude ()
  "Start Claude Code in a terminal buffer, connected to this Emacs."
  (interactive)
  (tandem--run "claude" tandem-claude-command))

;;;###autoload
(defun tandem-send-to-claude (&optional start end)
  "Send the region's lines, or the whole file, to Claude Code's prompt.
Interactively, START and END are the region's bounds when it is active.
Claude Code connected to this Emacs then shows `@file#L12-20' (the file
alone without a region) in its input, for the next message."
  (interactive (and (use-region-p) (list (region-beginning) (region-end))))
  (unless (and tandem-mode tandem--session)
    (user-error "Tandem is not running: turn on `tandem-mode'"))
  (unless (tandem-context-file-buffer-p (current-buffer))
    (user-error "This buffer is not a file on disk: save it first"))
  (tandem-session-mention
   tandem--session (buffer-file-name)
   (and start end
        (cons (line-number-at-pos start t)
              ;; A region that ends at a line's start does not take that line.
              (line-number-at-pos (if (and (> end start)
                                           (save-excursion (goto-char end) (bolp)))
                                      (1- end)
                                    end)
                                  t)))))

(provide 'tandem)
;;; tandem.el ends here
