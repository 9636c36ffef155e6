;;; tandem-doctor.el --- Whether a CLI connects, and the line that connects one  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; `M-x tandem-doctor' and `M-x tandem-env', both from the built `tandem'
;; command.

;;; Code:

(require 'tandem-session)
(require 'tandem-sidecar)

(defun tandem-doctor--program-or-error ()
  "Signal a `user-error' when the sidecar's program cannot run."
  (when-let ((problem (tandem-sidecar-problem)))
    (user-error "Tandem: %s" problem)))

;;;###autoload
(defun tandem-doctor ()
  "Explain whether a CLI started in the project connects, and how to fix it.
Runs `tandem doctor' with the environment of the terminals Emacs
opens and shows its report in the buffer *tandem-doctor*; \`g' there
runs it again."
  (interactive)
  (tandem-doctor--program-or-error)
  (let ((folder (tandem-session-folder-here))
        (buffer (get-buffer-create "*tandem-doctor*")))
    (with-current-buffer buffer
      ;; A report still coming in would mix with the new one.
      (when-let ((running (get-buffer-process buffer)))
        (delete-process running))
      (let ((inhibit-read-only t))
        (erase-buffer))
      (special-mode)
      (setq default-directory (file-name-as-directory folder))
      (setq-local revert-buffer-function (lambda (&rest _) (tandem-doctor))))
    (make-process
     :name "tandem-doctor"
     :buffer buffer
     :command (tandem-sidecar-program "doctor" "--cwd" folder)
     :connection-type 'pipe
     :noquery t
     :filter (lambda (process text)
               (when (buffer-live-p (process-buffer process))
                 (with-current-buffer (process-buffer process)
                   (save-excursion
                     (let ((inhibit-read-only t))
                       (goto-char (point-max))
                       (insert text))))))
     ;; Its exit status only repeats the report (1: a CLI would not connect).
     :sentinel #'ignore)
    (pop-to-buffer buffer)))

(defun tandem-env-line ()
  "The shell line that connects a CLI in another terminal to this Emacs."
  (let ((port (and tandem--session (tandem-session-port tandem--session))))
    (format "eval \"$(%s)\""
            (mapconcat #'shell-quote-argument
                       (apply #'tandem-sidecar-program "env" "--cwd" (tandem-session-folder-here)
                              (and port (list "--port" (number-to-string port))))
                       " "))))

;;;###autoload
(defun tandem-env ()
  "Show, and copy to the kill ring, the line to paste into another terminal.
Run there before Gemini CLI or Qwen Code, it makes the CLI connect to
this Emacs (a tmux pane, a terminal outside Emacs)."
  (interactive)
  (tandem-doctor--program-or-error)
  (let ((line (tandem-env-line)))
    (kill-new line)
    (message "Copied; paste it into the terminal before starting the CLI: %s" line)))

(provide 'tandem-doctor)
;;; tandem-doctor.el ends here
