;;; tandem-bridge-test.el --- Tests of tandem-bridge.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; The sidecar's requests and notifications, as parsed, turned into the
;; plain values the rest of the package takes; the editor's facts turned
;; into notifications, through `cat' as the sidecar.

;;; Code:

(require 'ert)
(require 'tandem-bridge)

(defun tandem-bridge-test--bridge (calls)
  "A bridge without a sidecar whose editor pushes each call onto CALLS's car."
  (tandem-bridge--make
   :editor (cl-loop for name in '(:show-diff :close-diff :diff-closed :clients-changed
                                  :warnings-changed :env-changed :diff-outcome)
                    append (list name (let ((name name))
                                        (lambda (&rest args)
                                          (push (cons name args) (car calls))
                                          "text"))))))

(ert-deftest tandem-bridge-diff-open ()
  "A diff to show, in plain names; one without its fields is refused with a reason."
  (let* ((calls (list nil))
         (bridge (tandem-bridge-test--bridge calls)))
    (tandem-bridge--request bridge "diff/open" '((id . "d1") (filePath . "/w/a.txt") (oldContent . nil)
                                                 (newContent . "b\n") (client . ((name . "Qwen Code")))))
    (should (equal (car calls) '((:show-diff ((id . "d1") (path . "/w/a.txt") (new . "b\n") (old . nil)
                                              (client . "Qwen Code"))))))
    (should-error (tandem-bridge--request bridge "diff/open" '((id . "x"))))
    (should (= (length (car calls)) 1))))

(ert-deftest tandem-bridge-diff-close ()
  "A close asks for the view's text; the engine's words on it follow."
  (let* ((calls (list nil))
         (bridge (tandem-bridge-test--bridge calls)))
    (should (equal (tandem-bridge--request bridge "diff/close" '((id . "d1") (reason . "terminal")))
                   '((content . "text"))))
    (tandem-bridge--notification bridge "diff/closed" '((id . "d1") (filePath . "/w/a") (reason . "terminal")
                                                        (message . "m") (keptText . "edits")))
    (tandem-bridge--notification bridge "diff/closed" '((id . "d2") (filePath . "/w/b") (message . "n")))
    (should (equal (reverse (car calls))
                   '((:close-diff "d1")
                     (:diff-closed ((id . "d1") (path . "/w/a") (message . "m") (kept-text . "edits")))
                     (:diff-closed ((id . "d2") (path . "/w/b") (message . "n") (kept-text . nil))))))))

(ert-deftest tandem-bridge-notifications ()
  "Warnings without a message and outcomes without one are not passed on."
  (let* ((calls (list nil))
         (bridge (tandem-bridge-test--bridge calls)))
    (tandem-bridge--notification bridge "warnings" '((warnings . [((code . "x")) ((code . "y") (message . "Y"))])))
    (tandem-bridge--notification bridge "diff/outcome" '((id . "d1") (kind . "cancelled")))
    (tandem-bridge--notification bridge "diff/outcome" '((id . "d1") (filePath . "/w/a") (kind . "cancelled")
                                                         (message . "M")))
    (tandem-bridge--notification bridge "status" '((clients . [((name . "Gemini CLI"))])))
    (should (equal (reverse (car calls))
                   '((:warnings-changed (((code . "y") (message . "Y"))))
                     (:diff-outcome ((id . "d1") (path . "/w/a") (kind . "cancelled") (message . "M")))
                     (:clients-changed (((name . "Gemini CLI")))))))))

(ert-deftest tandem-bridge-context-notifications ()
  "The facts of one look leave as notifications in one write, the selection only when there is one."
  (let* ((lines '())
         (bridge (tandem-bridge-start '("cat") :log #'ignore :exited #'ignore))
         (rpc (tandem-bridge-rpc bridge)))
    (setf (tandem-rpc-notification-handler rpc)
          (lambda (method params) (push (cons method params) lines)))
    (unwind-protect
        (progn
          (tandem-bridge-context bridge '((opened "/w/a") (focused "/w/a") (cursor "/w/a" 2 6 nil nil)
                                          (cursor "/w/a" 2 6 "sel" (2 3)) (closed "/w/a")))
          ;; The same text again (encoded once), then another.
          (let ((selected "héllo \"文件\"\n\tx"))
            (tandem-bridge-context bridge `((cursor "/w/a" 3 1 ,selected (2 1))))
            (tandem-bridge-context bridge `((cursor "/w/a" 4 1 ,selected (2 1))))
            (tandem-bridge-context bridge '((cursor "/w/a" 4 2 "other" (4 7)))))
          (let ((deadline (+ (float-time) 10)))
            (while (and (< (length lines) 8) (< (float-time) deadline))
              (accept-process-output nil 0.02)))
          (should (equal (reverse lines)
                         '(("file/opened" (path . "/w/a")) ("file/focused" (path . "/w/a"))
                           ("cursor/changed" (path . "/w/a") (line . 2) (character . 6))
                           ("cursor/changed" (path . "/w/a") (line . 2) (character . 6)
                            (anchor (line . 2) (character . 3)) (selectedText . "sel"))
                           ("file/closed" (path . "/w/a"))
                           ("cursor/changed" (path . "/w/a") (line . 3) (character . 1)
                            (anchor (line . 2) (character . 1)) (selectedText . "héllo \"文件\"\n\tx"))
                           ("cursor/changed" (path . "/w/a") (line . 4) (character . 1)
                            (anchor (line . 2) (character . 1)) (selectedText . "héllo \"文件\"\n\tx"))
                           ("cursor/changed" (path . "/w/a") (line . 4) (character . 2)
                            (anchor (line . 4) (character . 7)) (selectedText . "other"))))))
      (tandem-bridge-close bridge 5))))

(ert-deftest tandem-bridge-context-copies-a-selection-once ()
  "A selection sent again and again is encoded once, and copied into no new string.
Looks at a huge region that changes only past the limit send the same
text: each such look used to copy it three times, and the garbage cost
a collection every few looks."
  (let ((bridge (tandem-bridge-start '("sh" "-c" "cat >/dev/null") :log #'ignore :exited #'ignore))
        (selected (make-string 16385 ?é)))
    (unwind-protect
        (progn
          (tandem-bridge-context bridge `((cursor "/w/a" 1 1 ,selected nil)))
          (let ((before string-chars-consed))
            (dotimes (line 100)
              (tandem-bridge-context bridge `((cursor "/w/a" ,line 1 ,selected nil))))
            (should (< (- string-chars-consed before) (* 100 (/ (length selected) 10))))))
      (tandem-bridge-close bridge 5))))

(provide 'tandem-bridge-test)
;;; tandem-bridge-test.el ends here
