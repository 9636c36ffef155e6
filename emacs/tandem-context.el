;;; tandem-context.el --- What the user is looking at, as editor facts  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; Editor facts for the sidecar: which buffers visit real files, which one
;; is in the selected window, where point is and what the region holds.
;; Hooks only note that something may have changed; a short timer then
;; compares the editor with what was last sent and sends the difference.
;; The sidecar decides what reaches the CLIs (limits, order, files on disk).

;;; Code:

(require 'cl-lib)

(cl-defstruct (tandem-context (:constructor tandem-context--make)
                              (:copier nil))
  "What was last sent to the sidecar, and where to send the next change."
  send
  delay
  timer
  (files '())
  focused
  cursor
  limit)

(defvar tandem-context--trackers '()
  "The trackers attached to this Emacs (one per running session).")

(defconst tandem-context--hooks
  '(post-command-hook window-buffer-change-functions
    window-selection-change-functions find-file-hook after-save-hook kill-buffer-hook)
  "The hooks after which the editor may have changed.")

(defun tandem-context-file-buffer-p (buffer)
  "Whether BUFFER visits a real local file: one that exists, in a base buffer.
Remote files are left out: the CLIs cannot read them, and asking whether
they exist would cost a round trip on every look."
  (let ((file (buffer-file-name buffer)))
    (and file
         (null (buffer-base-buffer buffer))
         (not (file-remote-p file))
         (file-exists-p file))))

(defun tandem-context-character ()
  "Point's character on its line: 1-based, counted in characters.
Not `current-column', which counts display columns (two for a wide
character such as 文, more for a tab)."
  (1+ (- (point) (line-beginning-position))))

(defun tandem-context--cursor (buffer limit)
  "Point and the active region of BUFFER in the selected window, as a fact.
Of the region, at most LIMIT characters (all of it when nil): what the
CLIs keep, so that a huge region costs no more than a small one."
  (with-current-buffer buffer
    (list 'cursor (buffer-file-name) (line-number-at-pos nil t) (tandem-context-character)
          (and (use-region-p)
               (let ((start (region-beginning)) (end (region-end)))
                 (buffer-substring-no-properties
                  start (if limit (min end (+ start limit)) end)))))))

(defun tandem-context-attach (send delay &optional limit)
  "Start tracking the editor; SEND delivers the facts of each look.
SEND takes a list of facts, the changes seen at once: (opened FILE),
\(closed FILE), (focused FILE) and (cursor FILE LINE CHARACTER
SELECTED), SELECTED being the region's text or nil.
Changes are gathered for DELAY seconds before they are compared and sent.
Of a region, at most LIMIT characters are read (all of it when nil).
Returns the tracker."
  (let ((tracker (tandem-context--make :send send :delay delay :limit limit)))
    (unless tandem-context--trackers
      (dolist (hook tandem-context--hooks)
        (add-hook hook #'tandem-context-changed)))
    (push tracker tandem-context--trackers)
    (tandem-context-flush tracker)
    tracker))

(defun tandem-context-detach (tracker)
  "Stop TRACKER."
  (when (tandem-context-timer tracker)
    (cancel-timer (tandem-context-timer tracker))
    (setf (tandem-context-timer tracker) nil))
  (setq tandem-context--trackers (delq tracker tandem-context--trackers))
  (unless tandem-context--trackers
    (dolist (hook tandem-context--hooks)
      (remove-hook hook #'tandem-context-changed))))

(defun tandem-context-changed (&rest _)
  "Note that the editor may have changed: the trackers look soon.
This runs after every command, so it only starts a timer when none runs."
  (dolist (tracker tandem-context--trackers)
    (unless (tandem-context-timer tracker)
      (setf (tandem-context-timer tracker)
            (run-with-timer (tandem-context-delay tracker) nil
                            #'tandem-context-flush tracker)))))

(defun tandem-context-flush (tracker)
  "Send what changed since TRACKER last looked."
  (setf (tandem-context-timer tracker) nil)
  (let ((facts '())
        (files (mapcar #'buffer-file-name
                       (cl-remove-if-not #'tandem-context-file-buffer-p (buffer-list))))
        (selected (window-buffer (selected-window))))
    (dolist (file (cl-set-difference (tandem-context-files tracker) files :test #'string=))
      (push `(closed ,file) facts))
    (dolist (file (cl-set-difference files (tandem-context-files tracker) :test #'string=))
      (push `(opened ,file) facts))
    (setf (tandem-context-files tracker) files)
    (unless (member (tandem-context-focused tracker) files)
      (setf (tandem-context-focused tracker) nil
            (tandem-context-cursor tracker) nil))
    ;; Terminals, dired and the like keep the last file active, as a glance away does.
    (when (tandem-context-file-buffer-p selected)
      (let ((file (buffer-file-name selected))
            (cursor (tandem-context--cursor selected (tandem-context-limit tracker))))
        (unless (equal file (tandem-context-focused tracker))
          (setf (tandem-context-focused tracker) file)
          (push `(focused ,file) facts))
        (unless (equal cursor (tandem-context-cursor tracker))
          (setf (tandem-context-cursor tracker) cursor)
          (push cursor facts))))
    (when facts
      (funcall (tandem-context-send tracker) (nreverse facts)))))

(provide 'tandem-context)
;;; tandem-context.el ends here
