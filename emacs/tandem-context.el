;;; tandem-context.el --- What the user is looking at, as editor facts  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; Editor facts for the sidecar: which buffers visit real files, which one
;; is in the selected window, where point is and what the region holds.
;; Hooks only note that something may have changed; a short timer then
;; compares the editor with what was last sent and sends the difference.
;; The list of file buffers is made again only after a hook noted a change,
;; or once a second: a look after a mere cursor move reads the cursor alone.
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
  ;; When the files were last listed (`float-time'); 0.0 once a hook noted a
  ;; change, so that the next look lists them again.
  (listed 0.0)
  focused
  cursor
  limit
  (looked 0.0)
  line
  anchor-line
  region)

(defvar tandem-context--trackers '()
  "The trackers attached to this Emacs (one per running session).")

(defconst tandem-context--relist-seconds 1.0
  "How long a list of file buffers is kept when no hook noted a change.
What no hook announces, such as a visited file deleted or made on disk by
another program, is seen within this time.")

(defconst tandem-context--hooks
  '((post-command-hook . tandem-context-commanded)
    (window-buffer-change-functions . tandem-context-changed)
    (window-selection-change-functions . tandem-context-changed)
    (find-file-hook . tandem-context-changed)
    (after-save-hook . tandem-context-changed)
    (kill-buffer-hook . tandem-context-changed))
  "The hooks after which the editor may have changed, and what each runs.")

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

(defun tandem-context--line (tracker)
  "Point's line in the current buffer, 1-based, ignoring narrowing.
Counted from the line TRACKER found last in the same text: a count from
the top costs time in proportion to the position, at every look."
  (tandem-context--line-from (tandem-context-line tracker)))

(defun tandem-context--anchor (tracker)
  "Where the active region began (the mark), as (LINE CHARACTER).
Its line is counted from the mark's that TRACKER found last, as point's
is from point's: a mark that stays while the region grows costs nothing."
  (save-excursion
    (goto-char (mark))
    (list (tandem-context--line-from (tandem-context-anchor-line tracker))
          (tandem-context-character))))

(defun tandem-context--line-from (last)
  "Point's line, 1-based, ignoring narrowing, counted from LAST.
LAST is [BUFFER TICK BOL LINE] of the previous count, updated in place."
  (let ((bol (line-beginning-position))
        (tick (buffer-chars-modified-tick)))
    (let ((line (if (and (eq (aref last 0) (current-buffer)) (eql (aref last 1) tick)
                         (not (eq selective-display t)))
                    (let ((from (aref last 2)))
                      (cond ((= from bol) (aref last 3))
                            ((< from bol) (+ (aref last 3) (count-lines from bol)))
                            (t (- (aref last 3) (count-lines bol from)))))
                  (line-number-at-pos bol t))))
      (aset last 0 (current-buffer))
      (aset last 1 tick)
      (aset last 2 bol)
      (aset last 3 line))))

(defun tandem-context--region (tracker limit)
  "The text of the active region, at most LIMIT characters (all when nil).
A region whose start and text are those of TRACKER's last look, cut at
LIMIT then and now, is that look's text again: a region growing or
shrinking at its end costs no new copy."
  (let* ((start (region-beginning))
         (end (if limit (min (region-end) (+ start limit)) (region-end)))
         (tick (buffer-chars-modified-tick))
         ;; [BUFFER TICK START END TEXT] of the last read, kept in place.
         (last (tandem-context-region tracker)))
    (if (and (eq (aref last 0) (current-buffer)) (eql (aref last 1) tick)
             (eql (aref last 2) start) (eql (aref last 3) end))
        (aref last 4)
      (aset last 0 (current-buffer))
      (aset last 1 tick)
      (aset last 2 start)
      (aset last 3 end)
      (aset last 4 (buffer-substring-no-properties start end)))))

(defun tandem-context--cursor (tracker buffer)
  "Point and the active region of BUFFER in the selected window, as a fact.
Of the region, at most TRACKER's limit of characters (all of it when nil):
what the CLIs keep, so that a huge region costs no more than a small one.
Nil when the fact would be the one TRACKER sent last: a look that finds
nothing new makes no garbage."
  (with-current-buffer buffer
    (let* ((line (tandem-context--line tracker))
           (character (tandem-context-character))
           (selected (and (use-region-p) (tandem-context--region tracker (tandem-context-limit tracker))))
           (anchor (and selected (tandem-context--anchor tracker)))
           (last (tandem-context-cursor tracker)))
      (unless (and (equal (buffer-file-name) (nth 1 last))
                   (eql line (nth 2 last))
                   (eql character (nth 3 last))
                   (equal selected (nth 4 last))
                   (equal anchor (nth 5 last)))
        (list 'cursor (buffer-file-name) line character selected anchor)))))

(defun tandem-context-attach (send delay &optional limit)
  "Start tracking the editor; SEND delivers the facts of each look.
SEND takes a list of facts, the changes seen at once: (opened FILE),
\(closed FILE), (focused FILE) and (cursor FILE LINE CHARACTER
SELECTED ANCHOR), SELECTED being the region's text or nil and ANCHOR
where the region began, (LINE CHARACTER), or nil.
Changes are gathered for DELAY seconds before they are compared and sent.
Of a region, LIMIT characters and one more are read (all of it when nil):
the sidecar then knows that the region goes on, and marks the cut as the
CLIs do.  Returns the tracker."
  (let ((tracker (tandem-context--make :send send :delay delay :limit (and limit (1+ limit))
                                      :line (make-vector 4 nil) :anchor-line (make-vector 4 nil)
                                      :region (make-vector 5 nil))))
    (unless tandem-context--trackers
      (pcase-dolist (`(,hook . ,function) tandem-context--hooks)
        (add-hook hook function)))
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
    (pcase-dolist (`(,hook . ,function) tandem-context--hooks)
      (remove-hook hook function))))

(defun tandem-context--look-later (tracker)
  "Make TRACKER look once its delay is over, unless it will already."
  (unless (tandem-context-timer tracker)
    (setf (tandem-context-timer tracker)
          (run-with-timer (tandem-context-delay tracker) nil #'tandem-context-flush tracker))))

(defun tandem-context-changed (&rest _)
  "Note that the editor may have changed: the trackers look soon.
A timer makes each look once its delay is over: the changes of that time
cost one look, which sees the editor once the change is complete, and
lists the file buffers again."
  (dolist (tracker tandem-context--trackers)
    (setf (tandem-context-listed tracker) 0.0)
    (tandem-context--look-later tracker)))

(defun tandem-context-commanded ()
  "Look now with each tracker that last looked longer than its delay ago.
This runs after every command.  The other trackers look once their delay
is over, as after any change: a burst of commands costs one look, and a
command alone costs no timer."
  (let ((now (float-time)))
    (dolist (tracker tandem-context--trackers)
      (cond ((tandem-context-timer tracker))
            ((< now (+ (tandem-context-looked tracker) (tandem-context-delay tracker)))
             (tandem-context--look-later tracker))
            ;; An error would take this function off the hook: it is reported instead.
            (t (with-demoted-errors "Tandem: %S"
                 (tandem-context-flush tracker)))))))

(defun tandem-context--list-files (tracker)
  "List the file buffers again for TRACKER; return what opened and closed.
The facts come last first."
  (let ((facts '())
        (files '()))
    (dolist (buffer (buffer-list))
      (when (tandem-context-file-buffer-p buffer)
        (push (buffer-file-name buffer) files)))
    (setq files (nreverse files))
    (unless (equal files (tandem-context-files tracker))
      (dolist (file (cl-set-difference (tandem-context-files tracker) files :test #'string=))
        (push `(closed ,file) facts))
      (dolist (file (cl-set-difference files (tandem-context-files tracker) :test #'string=))
        (push `(opened ,file) facts))
      (setf (tandem-context-files tracker) files)
      (unless (member (tandem-context-focused tracker) files)
        (setf (tandem-context-focused tracker) nil
              (tandem-context-cursor tracker) nil)))
    facts))

(defun tandem-context-flush (tracker)
  "Send what changed since TRACKER last looked."
  (let ((now (float-time))
        (facts '()))
    (setf (tandem-context-timer tracker) nil
          (tandem-context-looked tracker) now)
    (when (> now (+ (tandem-context-listed tracker) tandem-context--relist-seconds))
      (setf (tandem-context-listed tracker) now
            facts (tandem-context--list-files tracker)))
    (let* ((selected (window-buffer (selected-window)))
           (selected-file (car (member (buffer-file-name selected) (tandem-context-files tracker)))))
      ;; Terminals, dired and the like keep the last file active, as a glance away does.
      (when selected-file
        (unless (equal selected-file (tandem-context-focused tracker))
          (setf (tandem-context-focused tracker) selected-file)
          (push `(focused ,selected-file) facts))
        (let ((cursor (tandem-context--cursor tracker selected)))
          (when cursor
            (setf (tandem-context-cursor tracker) cursor)
            (push cursor facts)))))
    (when facts
      (funcall (tandem-context-send tracker) (nreverse facts)))))

(provide 'tandem-context)
;;; tandem-context.el ends here
