;;; tandem-context-test.el --- Tests of tandem-context.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; Real buffers and files in batch Emacs; the facts sent are recorded.

;;; Code:

(require 'ert)
(require 'dired)
(require 'tandem-context)

(defmacro tandem-context-test--in-folder (var &rest body)
  "Run BODY with VAR a new folder (true name), removed afterwards with its buffers."
  (declare (indent 1))
  `(let ((,var (file-truename (make-temp-file "tandem-context-" t))))
     (unwind-protect (progn ,@body)
       (dolist (buffer (buffer-list))
         (when (string-prefix-p ,var (or (buffer-file-name buffer)
                                         (buffer-local-value 'default-directory buffer)))
           (with-current-buffer buffer (set-buffer-modified-p nil))
           (kill-buffer buffer)))
       (delete-directory ,var t))))

(defun tandem-context-test--file (folder name text)
  "Write TEXT to NAME in FOLDER and return its path."
  (let ((path (expand-file-name name folder)))
    (with-temp-file path (insert text))
    path))

(defun tandem-context-test--track ()
  "Attach a recording tracker; return (TRACKER . LOG).
LOG is a cons whose car holds the messages sent."
  (let* ((log (list nil))
         (tracker (tandem-context-attach (lambda (messages) (setcar log (append (reverse messages) (car log))))
                                        0.01)))
    (setcar log nil)
    (cons tracker log)))

(defun tandem-context-test--flush (tracked)
  "Look at the editor now with TRACKED; return the messages sent, oldest first."
  (setcar (cdr tracked) nil)
  (tandem-context-flush (car tracked))
  (reverse (cadr tracked)))

(defmacro tandem-context-test--visiting (vars name text &rest body)
  "Run BODY in the selected window's buffer, visiting new file NAME with TEXT.
VARS is (PATH TRACKED TRACKER): the file's path, a recording tracker as
`tandem-context-test--track' returns it, and the tracker, detached afterwards."
  (declare (indent 3))
  (pcase-let ((`(,path ,tracked ,tracker) vars)
              (folder (make-symbol "folder")))
    `(tandem-context-test--in-folder ,folder
       (let* ((,path (tandem-context-test--file ,folder ,name ,text))
              (,tracked (tandem-context-test--track))
              (,tracker (car ,tracked)))
         (ignore ,tracker)
         (unwind-protect
             (progn
               (switch-to-buffer (find-file-noselect ,path))
               ,@body)
           (tandem-context-detach ,tracker))))))

(ert-deftest tandem-context-character-counts-characters ()
  "Characters, not display columns and not bytes: in héllo 文件 x the x is 10."
  (with-temp-buffer
    (insert "first\nhéllo 文件 x\n")
    (goto-char (point-min))
    (forward-line 1)
    (search-forward "x")
    (backward-char)
    (should (= (tandem-context-character) 10))
    (should (= (current-column) 11))))

(ert-deftest tandem-context-file-buffers-only ()
  "Files on disk count; scratch, dired, indirect and unsaved new buffers do not."
  (tandem-context-test--in-folder folder
    (let* ((path (tandem-context-test--file folder "a.txt" "a\n"))
           (file (find-file-noselect path))
           (fresh (find-file-noselect (expand-file-name "new.txt" folder)))
           (indirect (with-current-buffer file (clone-indirect-buffer "a-indirect" nil)))
           (listing (dired-noselect folder)))
      (unwind-protect
          (progn
            (should (tandem-context-file-buffer-p file))
            (should-not (tandem-context-file-buffer-p (get-buffer-create "*scratch*")))
            (should-not (tandem-context-file-buffer-p listing))
            (should-not (tandem-context-file-buffer-p indirect))
            (should-not (tandem-context-file-buffer-p fresh))
            (with-current-buffer fresh
              (insert "now on disk\n")
              (save-buffer))
            (should (tandem-context-file-buffer-p fresh)))
        (kill-buffer indirect)))))

(ert-deftest tandem-context-sends-what-changed ()
  "Opened, focused, the cursor and the region; nothing twice; closed on kill."
  (tandem-context-test--in-folder folder
    (let* ((path (tandem-context-test--file folder "wide.txt" "one\nhéllo 文件 x\n"))
           (tracked (tandem-context-test--track)))
      (unwind-protect
          (let ((buffer (find-file-noselect path)))
            (switch-to-buffer buffer)
            (goto-char (point-min))
            (forward-line 1)
            (search-forward "x")
            (backward-char)
            (let ((sent (tandem-context-test--flush tracked)))
              (should (member `(opened ,path) sent))
              (should (member `(focused ,path) sent))
              (should (member `(cursor ,path 2 10 nil nil) sent)))
            (should-not (tandem-context-test--flush tracked))
            (let ((transient-mark-mode t))
              (goto-char (point-min))
              (set-mark (point))
              (forward-line 1)
              (forward-char 5)
              (activate-mark)
              (should (equal (tandem-context-test--flush tracked)
                             `((cursor ,path 2 6 "one\nhéllo" (1 1)))))
              ;; Made upwards: point starts it, the mark ends it.
              (exchange-point-and-mark)
              (should (equal (tandem-context-test--flush tracked)
                             `((cursor ,path 1 1 "one\nhéllo" (2 6)))))
              (exchange-point-and-mark)
              (deactivate-mark))
            (should (equal (tandem-context-test--flush tracked)
                           `((cursor ,path 2 6 nil nil))))
            ;; A glance at a buffer that is not a file keeps the file active.
            (switch-to-buffer (get-buffer-create "*scratch*"))
            (should-not (tandem-context-test--flush tracked))
            (kill-buffer buffer)
            (should (equal (tandem-context-test--flush tracked) `((closed ,path)))))
        (tandem-context-detach (car tracked))))))

(ert-deftest tandem-context-lists-files-after-a-hook-or-a-second ()
  "A look after a cursor move lists no buffers; one after a hook, or a second on, does."
  (tandem-context-test--visiting (path tracked tracker) "a.txt" "a\n"
    (should (member `(opened ,path) (tandem-context-test--flush tracked)))
    ;; Deleted by another program: no hook runs, so the next look does not see it...
    (delete-file path)
    (forward-line 1)
    (should (equal (tandem-context-test--flush tracked) `((cursor ,path 2 1 nil nil))))
    ;; ...but the look a second later does.
    (setf (tandem-context-listed tracker) (- (float-time) 2))
    (should (equal (tandem-context-test--flush tracked) `((closed ,path))))
    ;; A file visited runs a hook: the next look lists the buffers at once.
    (let ((other (tandem-context-test--file (file-name-directory path) "b.txt" "b\n")))
      (switch-to-buffer (find-file-noselect other))
      (should (equal (tandem-context-test--flush tracked)
                     `((opened ,other) (focused ,other) (cursor ,other 1 1 nil nil)))))))

;; With the session's LIMIT, one character more than the CLIs keep is read: the
;; sidecar then knows the region goes on.
(ert-deftest tandem-context-reads-a-region-up-to-the-limit ()
  "Of a huge region, LIMIT characters and one more are read; with no limit, all of it."
  (tandem-context-test--in-folder folder
    (let* ((line "héllo 文件 x\n")
           (path (tandem-context-test--file folder "huge.txt"
                                            (apply #'concat (make-list 20000 line))))
           (limited (tandem-context-attach #'ignore 0.01 100))
           (whole (tandem-context-attach #'ignore 0.01)))
      (unwind-protect
          (let ((transient-mark-mode t)
                (start (substring (apply #'concat (make-list 10 line)) 0 101)))
            (switch-to-buffer (find-file-noselect path))
            (goto-char (point-max))
            (push-mark (point-min) t t)
            (should (equal (nth 4 (tandem-context--cursor limited (current-buffer))) start))
            (should (= (length (nth 4 (tandem-context--cursor whole (current-buffer))))
                       (* 20000 (length line))))
            ;; The region shrinks at its end, and is still longer than the limit: the same text.
            (forward-line -1)
            (should (equal (nth 4 (tandem-context--cursor limited (current-buffer))) start))
            ;; It starts elsewhere: another text.
            (push-mark (1+ (point-min)) t t)
            (should (equal (nth 4 (tandem-context--cursor limited (current-buffer)))
                           (substring (apply #'concat (make-list 10 line)) 1 102)))
            (tandem-context-flush limited)
            (should (= (length (nth 4 (tandem-context-cursor limited))) 101))
            (deactivate-mark))
        (tandem-context-detach limited)
        (tandem-context-detach whole)))))

(ert-deftest tandem-context-counts-lines-from-the-last-look ()
  "Point's line, counted from the last look's, is the line counted from the top."
  (tandem-context-test--visiting (_path _tracked tracker) "lines.txt"
      (mapconcat (lambda (n) (format "line %d\n" n)) (number-sequence 1 300) "")
    (dolist (line '(1 250 250 249 3 300 301 120))
      (goto-char (point-min))
      (forward-line (1- line))
      (end-of-line)
      (should (= (tandem-context--line tracker) line)))
    ;; An edit above point, and narrowing: still the line from the top.
    (goto-char (point-min))
    (insert "new\nlines\n")
    (goto-char (point-max))
    (should (= (tandem-context--line tracker) 303))
    (narrow-to-region (line-beginning-position -10) (point-max))
    (forward-line -5)
    (should (= (tandem-context--line tracker) 298))
    (widen)))

(ert-deftest tandem-context-hooks-only-note ()
  "A command soon after a look starts a timer; one after the delay looks at once."
  (tandem-context-test--visiting (_path tracked tracker) "b.txt" "b\n"
    (setcar (cdr tracked) nil)
    (setf (tandem-context-looked tracker) (float-time))
    (tandem-context-commanded)
    (should (tandem-context-timer tracker))
    (should-not (cadr tracked))
    (let ((deadline (+ (float-time) 10)))
      (while (and (not (cadr tracked)) (< (float-time) deadline))
        (accept-process-output nil 0.02)))
    (should (assq 'focused (cadr tracked)))
    ;; Longer than the delay since that look: the next command's look comes at once.
    (goto-char (point-max))
    (setf (tandem-context-looked tracker) 0.0)
    (setcar (cdr tracked) nil)
    (tandem-context-commanded)
    (should-not (tandem-context-timer tracker))
    (should (assq 'cursor (cadr tracked)))
    ;; Other hooks always wait for the delay: the change they note is not over yet.
    (tandem-context-changed)
    (should (tandem-context-timer tracker))
    (tandem-context-detach tracker)
    (should-not (tandem-context-timer tracker))
    (should-not (memq #'tandem-context-commanded post-command-hook))
    (should-not (memq #'tandem-context-changed kill-buffer-hook))))

(provide 'tandem-context-test)
;;; tandem-context-test.el ends here
