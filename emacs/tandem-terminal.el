;;; tandem-terminal.el --- A CLI in a terminal buffer  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; `tandem-run-gemini', `tandem-run-qwen' and `tandem-run-claude' start
;; a CLI in a terminal buffer, in the project's root.  The terminal inherits
;; `process-environment', which holds the variables of the running
;; session, so the CLI connects to this Emacs.

;;; Code:

(declare-function eat "ext:eat" (&optional program arg))
(declare-function vterm "ext:vterm" (&optional arg))
(declare-function term-char-mode "term")
(defvar vterm-shell)
(defvar eat-buffer-name)

(defgroup tandem-terminal nil
  "How Tandem runs the CLIs."
  :group 'tandem
  :prefix "tandem-")

(defcustom tandem-gemini-command "gemini"
  "The shell command that starts Gemini CLI."
  :type 'string)

(defcustom tandem-qwen-command "qwen"
  "The shell command that starts Qwen Code."
  :type 'string)

(defcustom tandem-claude-command "claude --permission-mode default"
  "The shell command that starts Claude Code.
The newest Claude Code writes edits without asking in its default
permission mode, so no diff opens in Emacs; `--permission-mode default'
makes it ask, and show each edit as a diff here.  Drop the flag to keep
the mode of Claude Code's own settings (`defaultMode')."
  :type 'string)

(defcustom tandem-terminal 'auto
  "The terminal the CLIs run in.
`auto' takes the best one installed: eat, then vterm, then term."
  :type '(choice (const :tag "The best one installed" auto)
                 (const :tag "Eat" eat)
                 (const :tag "Vterm" vterm)
                 (const :tag "Term (built in)" term)))

(defun tandem-terminal--choice ()
  "The terminal to use: `eat', `vterm' or `term'."
  (if (not (eq tandem-terminal 'auto))
      tandem-terminal
    (cond ((or (fboundp 'eat) (locate-library "eat")) 'eat)
          ((or (fboundp 'vterm) (locate-library "vterm")) 'vterm)
          (t 'term))))

(defun tandem-terminal-run (name command directory)
  "Run the shell COMMAND in a terminal buffer NAME, in DIRECTORY.
Returns the buffer."
  (let* ((default-directory (file-name-as-directory directory))
         (buffer-name (format "*%s*" name))
         ;; Eat and vterm run a program with its arguments; a shell runs any command line.
         (program (format "%s -c %s" shell-file-name (shell-quote-argument command))))
    (pcase (tandem-terminal--choice)
      ('eat
       (require 'eat)
       (let ((eat-buffer-name buffer-name))
         (eat program)))
      ('vterm
       (require 'vterm)
       (let ((vterm-shell program))
         (vterm buffer-name)))
      (_
       (require 'term)
       (let ((buffer (make-term name shell-file-name nil "-c" command)))
         (with-current-buffer buffer
           (term-char-mode))
         (pop-to-buffer-same-window buffer)
         buffer)))))

(provide 'tandem-terminal)
;;; tandem-terminal.el ends here
