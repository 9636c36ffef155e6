;;; tandem-reload.el --- Buffers follow the files the CLIs write  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; After an accepted edit the CLI writes the file itself, a moment later.
;; Its buffer then shows the new text, reverted without a question when it
;; has no unsaved changes; a buffer with unsaved changes is never reverted
;; over: the user is told instead.

;;; Code:

(defconst tandem-reload--interval 0.2
  "Seconds between two looks at a file.")

(defconst tandem-reload--give-up 60
  "Seconds after which no write is expected any more.")

(defconst tandem-reload--settle 2
  "Seconds a file is followed after a change: a write may come in steps.")

(defun tandem-reload--signature (file)
  "Return the identity of the version of FILE on disk; nil if it is missing."
  (let ((attributes (file-attributes file)))
    (and attributes
         (list (file-attribute-inode-number attributes)
               (file-attribute-size attributes)
               (file-attribute-modification-time attributes)))))

(defun tandem-reload--revert (file)
  "Show the new FILE in its buffer, unless that buffer is modified."
  (let ((buffer (find-buffer-visiting file)))
    (when buffer
      (with-current-buffer buffer
        (if (buffer-modified-p)
            (message "Tandem: %s changed on disk; its buffer has unsaved changes that were kept (M-x revert-buffer loads the new text)"
                     (file-relative-name file))
          (revert-buffer t t t))))))

(defun tandem-reload-after-write (file)
  "Watch FILE, about to be written by a CLI, and revert its buffer once it is.
Returns the timer that watches."
  (let* ((before (tandem-reload--signature file))
         (start (float-time))
         (changed nil)
         (timer nil))
    (setq timer
          (run-with-timer
           tandem-reload--interval tandem-reload--interval
           (lambda ()
             (let ((now (tandem-reload--signature file)))
               (unless (equal now before)
                 (setq before now
                       changed (float-time))
                 (when now
                   (tandem-reload--revert file)))
               (when (> (- (float-time) (or changed start))
                        (if changed tandem-reload--settle tandem-reload--give-up))
                 (cancel-timer timer))))))
    timer))

(provide 'tandem-reload)
;;; tandem-reload.el ends here
