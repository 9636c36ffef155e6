;;; tandem-diff.el --- Proposed edits, side by side with the file  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; Each proposed edit shows the file as it is on disk beside the proposal,
;; an editable buffer in the file's major mode.  `C-c C-c' accepts the
;; proposal with the user's edits, `C-c C-k' rejects it.  Killing either
;; buffer, or the proposal's window, is a rejection too: every view ends
;; with exactly one answer, unless the CLI closed it first.
;;
;; Views stack: a view opened over another saves the window layout that
;; shows the other, and gives it back when it ends.

;;; Code:

(require 'cl-lib)
(require 'subr-x)

(declare-function smerge-refine-regions "smerge-mode")
(declare-function ediff-buffers "ediff")

(defgroup tandem-diff nil
  "How Tandem shows proposed edits."
  :group 'tandem
  :prefix "tandem-diff-")

(defcustom tandem-diff-highlight-limit 200000
  "Highlight the differences only when both sides are shorter than this.
In characters; the highlighting runs `diff' once, when a view opens."
  :type 'integer)

(defface tandem-diff-header-warning
  '((t :inherit warning))
  "Face of the warning about unsaved changes in a view's header line.")

(cl-defstruct (tandem-diffs (:constructor tandem-diffs-make (answer))
                            (:copier nil))
  "The open views of one session.
ANSWER is called as (VIEW OUTCOME CONTENT CALLBACK) to send an answer;
OUTCOME is `accepted' or `rejected'; CALLBACK takes the refusal, an
alist of `message' and `gone' (the diff is not open there any more), or
nil once the CLI was told."
  answer
  (views '()))

(cl-defstruct (tandem-diff-view (:constructor tandem-diff-view--make)
                                (:copier nil))
  "One proposed edit on screen."
  diffs id path client was-empty disk proposal frame layout
  ;; The CLI's proposal as it came, to tell whether the user edited it.
  proposed
  ;; The window of the proposal: deleting it is a rejection.
  window
  ;; `open', `answering' (an answer awaits its reply) or `ended'.
  (state 'open))

(defvar-local tandem-diff--view nil
  "The view this buffer belongs to.")
(put 'tandem-diff--view 'permanent-local t)

(defvar-local tandem-diff--new-file nil
  "Non-nil in the left side of a view of a file that does not exist yet.")

(defvar tandem-diff-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "C-c C-c") #'tandem-diff-accept)
    (define-key map (kbd "C-c C-k") #'tandem-diff-reject)
    (define-key map (kbd "C-c C-e") #'tandem-ediff)
    map)
  "Keys of both sides of a view.")

(define-minor-mode tandem-diff-mode
  "A side of a proposed edit: \\<tandem-diff-mode-map>\\[tandem-diff-accept] \
accepts, \\[tandem-diff-reject] rejects.
\\{tandem-diff-mode-map}"
  :lighter " Proposal"
  :keymap tandem-diff-mode-map)

(defun tandem-diff--short-name (path)
  "PATH as the user would write it from the current directory.
A name that starts with `~' is written `./~...', never read as the home folder."
  (let ((name (file-relative-name path)))
    (if (string-prefix-p "~" name) (concat "./" name) name)))

(defun tandem-diff--header-line (text)
  "Return TEXT for a header line, with each `%' doubled to show as itself."
  (string-replace "%" "%%" text))

(defun tandem-diff--side (name text path)
  "A new buffer NAME holding TEXT in the major mode of file PATH.
TEXT is untrusted: its local variables are ignored and no mode hook runs."
  (let ((buffer (generate-new-buffer name)))
    (with-current-buffer buffer
      (insert text)
      (goto-char (point-min))
      ;; The mode a visit of PATH would choose, without visiting it.  Neither the
      ;; text's local variables (`eval:' runs code) nor the mode's hooks (a
      ;; checker may expand or compile it) see the text.
      (let ((buffer-file-name path)
            (enable-local-variables nil))
        (delay-mode-hooks (ignore-errors (set-auto-mode))))
      ;; Emacs 29.3+: what checks this leaves the text alone even when asked.
      (setq-local untrusted-content t)
      (when global-font-lock-mode
        (turn-on-font-lock-if-desired))
      (set-buffer-modified-p nil)
      (buffer-disable-undo)
      (buffer-enable-undo))
    buffer))

(defun tandem-diff--unsaved-warning (path)
  "Return a warning when the buffer of PATH is modified, else nil."
  (let ((buffer (find-buffer-visiting path)))
    (when (and buffer (buffer-modified-p buffer))
      (format "%s has unsaved changes in Emacs: this side is the file on disk, your changes stay in their buffer"
              (tandem-diff--short-name path)))))

(defun tandem-diff--headers (view)
  "Give both sides of VIEW their header lines."
  (let* ((name (tandem-diff--short-name (tandem-diff-view-path view)))
         (warning (tandem-diff--unsaved-warning (tandem-diff-view-path view))))
    (with-current-buffer (tandem-diff-view-disk view)
      (setq header-line-format
            (tandem-diff--header-line
             (concat (if (buffer-local-value 'tandem-diff--new-file (current-buffer))
                         "New file: " "On disk: ")
                     name
                     (if warning (concat "  " (propertize warning 'face 'tandem-diff-header-warning)) "")))))
    (with-current-buffer (tandem-diff-view-proposal view)
      (setq header-line-format
            (tandem-diff--header-line
             (concat (or (tandem-diff-view-client view) "The CLI")
                     (substitute-command-keys
                      " proposes this · \\<tandem-diff-mode-map>\\[tandem-diff-accept] accept · \\[tandem-diff-reject] reject · \\[tandem-ediff] ediff")))))))

(defun tandem-diff--highlight (view)
  "Highlight the differences between the sides of VIEW."
  (let ((disk (tandem-diff-view-disk view))
        (proposal (tandem-diff-view-proposal view)))
    (when (and (< (buffer-size disk) tandem-diff-highlight-limit)
               (< (buffer-size proposal) tandem-diff-highlight-limit)
               (> (buffer-size disk) 0)
               (executable-find "diff")
               (require 'smerge-mode nil t))
      (with-current-buffer disk
        (ignore-errors
          (smerge-refine-regions (point-min) (point-max)
                                 (with-current-buffer proposal (point-min-marker))
                                 (with-current-buffer proposal (point-max-marker))
                                 nil nil
                                 '((face . diff-refine-removed))
                                 '((face . diff-refine-added))))))))

(defun tandem-diff-open (diffs diff)
  "Show DIFF as a view of DIFFS.
DIFF is an alist of `id', `path', `old' (nil for a new file), `new' and
`client' (its name, or nil).  Signals an error, the reason sent to the
CLI, when it cannot."
  (let-alist diff
    (when (tandem-diff-find diffs .id)
      (error "A diff with id %s is already open" .id))
    (let* ((name (file-name-nondirectory .path))
           (view (tandem-diff-view--make
                  :diffs diffs :id .id :path .path
                  :client .client
                  :was-empty (equal .new "")
                  :proposed .new
                  :frame (selected-frame)
                  :layout (current-window-configuration))))
      (condition-case err
          (progn
            (setf (tandem-diff-view-disk view)
                  (tandem-diff--side (format "*tandem %s: %s*" (if .old "on disk" "new file") name)
                                     (or .old "") .path))
            (setf (tandem-diff-view-proposal view)
                  (tandem-diff--side (format "*tandem proposal: %s*" name) .new .path))
            (with-current-buffer (tandem-diff-view-disk view)
              (setq tandem-diff--new-file (null .old))
              (setq buffer-read-only t))
            (dolist (buffer (list (tandem-diff-view-disk view) (tandem-diff-view-proposal view)))
              (with-current-buffer buffer
                (setq tandem-diff--view view)
                (tandem-diff-mode 1)
                (add-hook 'kill-buffer-hook #'tandem-diff--buffer-killed nil t)))
            (tandem-diff--headers view)
            (tandem-diff--highlight view)
            (tandem-diff--show view))
        (error
         (tandem-diff--remove view)
         (error "Cannot show the diff: %s" (error-message-string err))))
      (setf (tandem-diffs-views diffs) (append (tandem-diffs-views diffs) (list view)))
      (unless (memq #'tandem-diff--check-windows (default-value 'window-configuration-change-hook))
        (add-hook 'window-configuration-change-hook #'tandem-diff--check-windows))
      view)))

(defun tandem-diff--show (view)
  "Lay out VIEW in the selected frame: the file left, the proposal right."
  (let ((window (selected-window)))
    (when (window-minibuffer-p window)
      (setq window (frame-first-window)))
    (select-window window)
    (ignore-errors (delete-other-windows window))
    (set-window-dedicated-p window nil)
    (set-window-buffer window (tandem-diff-view-disk view))
    (let ((right (split-window window nil 'right)))
      (set-window-buffer right (tandem-diff-view-proposal view))
      (setf (tandem-diff-view-window view) right)
      (select-window right))))

(defun tandem-diff-find (diffs id)
  "The open view of DIFFS with ID, or nil."
  (cl-find id (tandem-diffs-views diffs) :key #'tandem-diff-view-id :test #'equal))

(defun tandem-diff-proposal-text (view)
  "The whole text of VIEW's proposal, with the user's edits."
  (with-current-buffer (tandem-diff-view-proposal view)
    (save-restriction
      (widen)
      (buffer-substring-no-properties (point-min) (point-max)))))

(defun tandem-diff--end (view)
  "Take VIEW off the screen and out of its session, restoring the layout."
  (unless (eq (tandem-diff-view-state view) 'ended)
    (setf (tandem-diff-view-state view) 'ended)
    (let* ((diffs (tandem-diff-view-diffs view))
           (views (tandem-diffs-views diffs))
           (above (cadr (memq view views)))
           (below (cl-find-if (lambda (other) (memq view (cdr (memq other views)))) views
                              :from-end t)))
      (setf (tandem-diffs-views diffs) (delq view views))
      (cond
       ;; A view opened over this one gives back this one's layout when it ends.
       (above (setf (tandem-diff-view-layout above) (tandem-diff-view-layout view)))
       ((and (frame-live-p (tandem-diff-view-frame view))
             (or below (get-buffer-window (tandem-diff-view-proposal view) t)))
        (with-selected-frame (tandem-diff-view-frame view)
          (ignore-errors (set-window-configuration (tandem-diff-view-layout view))))))
      (tandem-diff--remove view))))

(defun tandem-diff--remove (view)
  "Kill the buffers of VIEW."
  (dolist (buffer (list (tandem-diff-view-proposal view) (tandem-diff-view-disk view)))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (remove-hook 'kill-buffer-hook #'tandem-diff--buffer-killed t))
      (kill-buffer buffer))))

(defun tandem-diff--reject-closed (view)
  "Answer VIEW, whose buffer or window went away, with a rejection."
  (when (eq (tandem-diff-view-state view) 'open)
    (tandem-diff--end view)
    (funcall (tandem-diffs-answer (tandem-diff-view-diffs view)) view 'rejected nil #'ignore)))

(defun tandem-diff--buffer-killed ()
  "A side of a view is being killed: that is a rejection."
  (when tandem-diff--view
    (tandem-diff--reject-closed tandem-diff--view)))

(defun tandem-diff--check-windows ()
  "Reject the view on top when the user deleted its proposal's window.
Showing another buffer in that window is no answer (the proposal stays
open, and `C-x b' brings it back); the window that shows the proposal
last is the one that counts."
  (dolist (diffs (delete-dups (mapcar (lambda (buffer)
                                        (let ((view (buffer-local-value 'tandem-diff--view buffer)))
                                          (and view (tandem-diff-view-diffs view))))
                                      (buffer-list))))
    (when diffs
      (dolist (view (tandem-diffs-views diffs))
        (let ((shown (get-buffer-window (tandem-diff-view-proposal view) t)))
          (when shown
            (setf (tandem-diff-view-window view) shown))))
      (let ((top (car (last (tandem-diffs-views diffs)))))
        (when (and top
                   (eq (tandem-diff-view-state top) 'open)
                   (not (window-live-p (tandem-diff-view-window top))))
          (tandem-diff--reject-closed top))))))

(defun tandem-diff--this-view ()
  "The view of the current buffer, or an error."
  (or (and tandem-diff--view (not (eq (tandem-diff-view-state tandem-diff--view) 'ended))
           tandem-diff--view)
      (user-error "This buffer is not part of an open Tandem diff")))

(defun tandem-diff--answer (view outcome content)
  "Send OUTCOME (with CONTENT) for VIEW; close the view once it is taken.
An error reply leaves the view open and shows why."
  (unless (eq (tandem-diff-view-state view) 'open)
    (user-error "This proposal is already answered"))
  (setf (tandem-diff-view-state view) 'answering)
  (funcall (tandem-diffs-answer (tandem-diff-view-diffs view)) view outcome content
           (lambda (err)
             ;; Gone: the diff is no longer open on the other side; nothing to keep.
             (if (and err (not (alist-get 'gone err)))
                 (progn
                   (when (eq (tandem-diff-view-state view) 'answering)
                     (setf (tandem-diff-view-state view) 'open))
                   (message "Tandem: %s" (alist-get 'message err)))
               (tandem-diff--end view)))))

(defun tandem-diff-accept ()
  "Accept the proposal of this view, with your edits in it."
  (interactive)
  (let ((view (tandem-diff--this-view)))
    (tandem-diff--answer view 'accepted (tandem-diff-proposal-text view))))

(defun tandem-diff-reject ()
  "Reject the proposal of this view: the file stays as it is."
  (interactive)
  (tandem-diff--answer (tandem-diff--this-view) 'rejected nil))

(defun tandem-ediff ()
  "Compare this view's sides with `ediff'; answer from either side afterwards."
  (interactive)
  (let ((view (tandem-diff--this-view)))
    (ediff-buffers (tandem-diff-view-disk view) (tandem-diff-view-proposal view))))

(defun tandem-diff--keep (path text)
  "Keep TEXT, the user's edits of a proposal for PATH, in a buffer of its own.
The buffer is in the file's major mode and visits no file.  Return it."
  (tandem-diff--side (format "*tandem: %s (your edits)*" (file-name-nondirectory path))
                     text path))

(defun tandem-diff-close (diffs id)
  "Close the view ID of DIFFS at the CLI's request, without an answer.
Return the proposal's text.  What the user is told follows in
`tandem-diff-closed'."
  (let* ((view (or (tandem-diff-find diffs id)
                   (error "No open diff with id %s" id)))
         (text (tandem-diff-proposal-text view)))
    (tandem-diff--end view)
    text))

(defun tandem-diff-closed (notice)
  "Tell the user NOTICE, the engine's words on a view the CLI closed.
NOTICE (see `tandem-bridge-start') holds the message, and the user's
edits when those reach no file: they stay in a buffer of their own,
named in the message."
  (let-alist notice
    (let ((kept (and .kept-text (tandem-diff--keep .path .kept-text))))
      (message "Tandem: %s" (if kept
                                (format "%s  Your text is in the buffer %s." .message (buffer-name kept))
                              .message)))))

(defun tandem-diff-outcome (outcome)
  "Tell the user OUTCOME (see `tandem-bridge-start').
It says what became of a diff answered in the CLI's terminal, seconds
after its view closed: whether the CLI wrote the file, and the user's
edits with it."
  (message "Tandem: %s" (alist-get 'message outcome)))

(defun tandem-diff-end-all (diffs)
  "Close every view of DIFFS without an answer (the sidecar gives them)."
  (dolist (view (reverse (tandem-diffs-views diffs)))
    (tandem-diff--end view)))

(provide 'tandem-diff)
;;; tandem-diff.el ends here
