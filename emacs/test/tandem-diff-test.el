;;; tandem-diff-test.el --- Tests of tandem-diff.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; Views in batch Emacs; the answers are recorded and replied to here.
;; The tests with the real CLIs are in test/emacs/ of the repository.

;;; Code:

(require 'ert)
(require 'python)
(require 'tandem-diff)

(defvar tandem-diff-test--answers nil
  "Answers sent, newest first: (ID OUTCOME CONTENT CALLBACK).")

(defun tandem-diff-test--diffs ()
  "A new set of views whose answers are recorded."
  (setq tandem-diff-test--answers nil)
  (tandem-diffs-make (lambda (view outcome content callback)
                       (push (list (tandem-diff-view-id view) outcome content callback)
                             tandem-diff-test--answers))))

(defun tandem-diff-test--reply (err)
  "Reply ERR (nil for success) to the newest answer."
  (funcall (nth 3 (car tandem-diff-test--answers)) err))

(defmacro tandem-diff-test--with (var &rest body)
  "Run BODY with VAR a set of views; close those left afterwards."
  (declare (indent 1))
  `(let ((,var (tandem-diff-test--diffs)))
     (delete-other-windows)
     (switch-to-buffer "*scratch*")
     (unwind-protect (progn ,@body)
       (tandem-diff-end-all ,var))))

(defun tandem-diff-test--open (diffs id path old new)
  "Open view ID of DIFFS for PATH from OLD to NEW; return it."
  (tandem-diff-open diffs `((id . ,id) (path . ,path) (old . ,old) (new . ,new)
                            (client . "Gemini CLI"))))

(ert-deftest tandem-diff-shows-both-sides ()
  "The file on the left, read-only; the proposal on the right, editable, in the file's mode."
  (tandem-diff-test--with diffs
    (let ((view (tandem-diff-test--open diffs "d1" "/tmp/ws/shape.py" "x = 1\n" "x = 2\n")))
      (should (equal (mapcar #'window-buffer (window-list nil 'never (frame-first-window)))
                     (list (tandem-diff-view-disk view) (tandem-diff-view-proposal view))))
      (should (eq (window-buffer (selected-window)) (tandem-diff-view-proposal view)))
      (with-current-buffer (tandem-diff-view-disk view)
        (should buffer-read-only)
        (should (derived-mode-p 'python-mode))
        (should (equal (buffer-string) "x = 1\n"))
        (should (string-match-p "On disk: " header-line-format)))
      (with-current-buffer (tandem-diff-view-proposal view)
        (should-not buffer-read-only)
        (should (derived-mode-p 'python-mode))
        (should tandem-diff-mode)
        (should (equal (buffer-string) "x = 2\n"))
        (should (string-match-p "Gemini CLI proposes this · C-c C-c accept · C-c C-k reject"
                                header-line-format))))))

;; Set by the hostile text and hooks below when they run; they must not.
(defvar tandem-diff-test--ran nil)

(ert-deftest tandem-diff-proposal-runs-nothing ()
  "Neither side's local variables nor the mode's hooks run: the text is untrusted."
  (let ((enable-local-variables :all)
        (tandem-diff-test--ran nil)
        (python-mode-hook (list (lambda () (push 'mode-hook tandem-diff-test--ran)))))
    (tandem-diff-test--with diffs
      (let ((view (tandem-diff-test--open
                   diffs "d1" "/tmp/ws/shape.py"
                   "# -*- eval: (push 'disk tandem-diff-test--ran) -*-\nx = 1\n"
                   (concat "# -*- eval: (push 'first-line tandem-diff-test--ran) -*-\nx = 2\n"
                           "# Local Variables:\n# eval: (push 'locals tandem-diff-test--ran)\n"
                           "# fill-column: 3\n# End:\n"))))
        (dolist (side (list (tandem-diff-view-disk view) (tandem-diff-view-proposal view)))
          (with-current-buffer side
            (should (derived-mode-p 'python-mode))
            (should-not (local-variable-p 'fill-column))))
        (should-not tandem-diff-test--ran)))))

(ert-deftest tandem-diff-accept-with-edits ()
  "C-c C-c sends the edited text; the view closes once the reply says so."
  (tandem-diff-test--with diffs
    (let ((view (tandem-diff-test--open diffs "d1" "/tmp/ws/a.txt" "a\n" "b\r\nno final newline")))
      (with-current-buffer (tandem-diff-view-proposal view)
        (goto-char (point-max))
        (insert " 文件")
        (execute-kbd-macro (kbd "C-c C-c")))
      (should (equal (butlast (car tandem-diff-test--answers))
                     '("d1" accepted "b\r\nno final newline 文件")))
      (should (buffer-live-p (tandem-diff-view-proposal view)))
      (with-current-buffer (tandem-diff-view-proposal view)
        (should-error (tandem-diff-accept) :type 'user-error))
      (tandem-diff-test--reply nil)
      (should-not (buffer-live-p (tandem-diff-view-proposal view)))
      (should-not (buffer-live-p (tandem-diff-view-disk view)))
      (should-not (tandem-diffs-views diffs))
      (should (= (length tandem-diff-test--answers) 1))
      (should (eq (window-buffer (selected-window)) (get-buffer "*scratch*"))))))

(ert-deftest tandem-diff-error-reply-keeps-the-view ()
  "A refusal keeps the view open to answer again; a diff gone on the other side closes it."
  (tandem-diff-test--with diffs
    (let ((view (tandem-diff-test--open diffs "d1" "/tmp/ws/a.txt" "a\n" "b\n")))
      (with-current-buffer (tandem-diff-view-proposal view)
        (erase-buffer)
        (tandem-diff-accept)
        (tandem-diff-test--reply '((message . "an empty file cannot be accepted") (gone . nil)))
        (should (eq (tandem-diff-view-state view) 'open))
        (should (buffer-live-p (tandem-diff-view-proposal view)))
        (tandem-diff-reject))
      (tandem-diff-test--reply '((message . "no such diff") (gone . t)))
      (should-not (buffer-live-p (tandem-diff-view-proposal view)))
      (should (equal (mapcar #'cadr tandem-diff-test--answers) '(rejected accepted))))))

(ert-deftest tandem-diff-kill-buffer-rejects-once ()
  "Killing either side is one rejection, at once."
  (tandem-diff-test--with diffs
    (dolist (side '(tandem-diff-view-proposal tandem-diff-view-disk))
      (let ((view (tandem-diff-test--open diffs "d1" "/tmp/ws/a.txt" "a\n" "b\n")))
        (with-current-buffer (tandem-diff-view-proposal view)
          (insert "edited"))
        (kill-buffer (funcall side view))
        (should (equal (butlast (car tandem-diff-test--answers)) '("d1" rejected nil)))
        (should-not (buffer-live-p (tandem-diff-view-proposal view)))
        (should-not (buffer-live-p (tandem-diff-view-disk view)))
        (should-not (tandem-diffs-views diffs))
        (setq tandem-diff-test--answers nil)))))

(ert-deftest tandem-diff-closed-by-the-cli ()
  "A close from the CLI returns the edited proposal and sends no answer."
  (tandem-diff-test--with diffs
    (let ((view (tandem-diff-test--open diffs 7 "/tmp/ws/a.txt" "a\n" "b\n")))
      (with-current-buffer (tandem-diff-view-proposal view)
        (goto-char (point-max))
        (insert "c\n"))
      (should (equal (tandem-diff-close diffs 7) "b\nc\n"))
      (should-not (buffer-live-p (tandem-diff-view-proposal view)))
      (should-not tandem-diff-test--answers)
      (should-error (tandem-diff-close diffs 7)))))

(defun tandem-diff-test--told (notice)
  "Tell NOTICE as the engine's words on a closed view; return the message shown."
  (let ((shown nil))
    (cl-letf (((symbol-function 'message)
               (lambda (format-string &rest args) (setq shown (apply #'format format-string args)))))
      (tandem-diff-closed notice))
    shown))

(ert-deftest tandem-diff-closed-by-the-cli-says-why ()
  "The engine's message; with edits that reach no file, the buffer that keeps them."
  (should (equal (tandem-diff-test--told '((id . "d1") (path . "/tmp/ws/same.py")
                                           (message . "closed as proposed") (kept-text . nil)))
                 "Tandem: closed as proposed"))
  (should-not (get-buffer "*tandem: same.py (your edits)*"))
  (should (equal (tandem-diff-test--told '((id . "d2") (path . "/tmp/ws/edited.py")
                                           (message . "closed edited") (kept-text . "a = 2\nb = 3\n")))
                 "Tandem: closed edited  Your text is in the buffer *tandem: edited.py (your edits)*."))
  (with-current-buffer "*tandem: edited.py (your edits)*"
    (should (equal (buffer-string) "a = 2\nb = 3\n"))
    (should (derived-mode-p 'python-mode))
    (should-not buffer-file-name)
    (kill-buffer)))

(ert-deftest tandem-diff-outcome-is-told ()
  "A diff's outcome is shown as it comes."
  (let ((inhibit-message t))
    (should (equal (tandem-diff-outcome '((id . "d1") (kind . "cancelled")
                                          (message . "k.txt was not changed.")))
                   "Tandem: k.txt was not changed."))))

(ert-deftest tandem-diff-new-file ()
  "A file that does not exist yet diffs against an empty side."
  (tandem-diff-test--with diffs
    (let ((view (tandem-diff-test--open diffs "d1" "/tmp/ws/new.txt" nil "hello\n")))
      (with-current-buffer (tandem-diff-view-disk view)
        (should (equal (buffer-string) ""))
        (should (string-match-p "New file: " header-line-format))))))

(ert-deftest tandem-diff-two-at-once ()
  "A second view covers the first; each ends with its own answer; the layout comes back."
  (tandem-diff-test--with diffs
    (let* ((first (tandem-diff-test--open diffs "d1" "/tmp/ws/a.txt" "a\n" "A\n"))
           (second (tandem-diff-test--open diffs "d2" "/tmp/ws/b.txt" "b\n" "B\n")))
      (should (eq (window-buffer (selected-window)) (tandem-diff-view-proposal second)))
      (should-error (tandem-diff-test--open diffs "d2" "/tmp/ws/b.txt" "b\n" "B\n"))
      (with-current-buffer (tandem-diff-view-proposal second)
        (tandem-diff-reject))
      (tandem-diff-test--reply nil)
      (should (eq (window-buffer (selected-window)) (tandem-diff-view-proposal first)))
      (with-current-buffer (tandem-diff-view-proposal first)
        (tandem-diff-accept))
      (tandem-diff-test--reply nil)
      (should (equal (mapcar #'butlast tandem-diff-test--answers)
                     '(("d1" accepted "A\n") ("d2" rejected nil))))
      (should (equal (mapcar #'window-buffer (window-list)) (list (get-buffer "*scratch*")))))))

(ert-deftest tandem-diff-covered-view-ends-first ()
  "When the CLI closes a covered view, the view above it restores the first layout."
  (tandem-diff-test--with diffs
    (tandem-diff-test--open diffs "d1" "/tmp/ws/a.txt" "a\n" "A\n")
    (let ((second (tandem-diff-test--open diffs "d2" "/tmp/ws/b.txt" "b\n" "B\n")))
      (tandem-diff-close diffs "d1")
      (should (eq (window-buffer (selected-window)) (tandem-diff-view-proposal second)))
      (tandem-diff-close diffs "d2")
      (should (equal (mapcar #'window-buffer (window-list)) (list (get-buffer "*scratch*")))))))

(ert-deftest tandem-diff-warns-about-unsaved-changes ()
  "The header of the file's side says when its buffer has unsaved changes."
  (let* ((folder (make-temp-file "tandem-diff-" t))
         (path (expand-file-name "u.txt" folder))
         (buffer (progn (with-temp-file path (insert "u\n")) (find-file-noselect path))))
    (unwind-protect
        (tandem-diff-test--with diffs
          (with-current-buffer buffer (insert "unsaved "))
          (let ((view (tandem-diff-test--open diffs "d1" path "u\n" "v\n")))
            (with-current-buffer (tandem-diff-view-disk view)
              (should (string-match-p "u.txt has unsaved changes in Emacs" header-line-format)))))
      (with-current-buffer buffer (set-buffer-modified-p nil))
      (kill-buffer buffer)
      (delete-directory folder t))))

;; A name is shown as written, never as a mode line construct or the home folder
;; (batch Emacs formats no mode line: the doubled % are what it would show as one).
(ert-deftest tandem-diff-headers-show-names-literally ()
  "A folder named ~ reads ./~/…; % in a name or a client's name shows as itself."
  (tandem-diff-test--with diffs
    (let* ((default-directory "/tmp/ws/")
           (view (tandem-diff-open diffs '((id . "d1") (path . "/tmp/ws/~/50%-%s.txt")
                                            (old . "a\n") (new . "b\n")
                                            (client . "%e CLI \\[kill-emacs]")))))
      (with-current-buffer (tandem-diff-view-disk view)
        (should (equal header-line-format "On disk: ./~/50%%-%%s.txt")))
      (with-current-buffer (tandem-diff-view-proposal view)
        (should (string-prefix-p "%%e CLI \\[kill-emacs] proposes this · C-c C-c accept"
                                 header-line-format))))))

(provide 'tandem-diff-test)
;;; tandem-diff-test.el ends here
