;;; tandem-rpc-test.el --- Tests of tandem-rpc.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; A real process, `cat', sends every message back: a request comes back
;; as a request from the other side, its reply as the reply to it.

;;; Code:

(require 'ert)
(require 'tandem-rpc)

(defun tandem-rpc-test--wait (predicate)
  "Wait until PREDICATE returns non-nil, up to 30 seconds; return its value."
  (let ((deadline (+ (float-time) 30))
        value)
    (while (and (not (setq value (funcall predicate))) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    value))

(defmacro tandem-rpc-test--with-echo (var handlers &rest body)
  "Run BODY with VAR a connection to `cat' with HANDLERS; end it afterwards."
  (declare (indent 2))
  `(let ((,var (apply #'tandem-rpc-start "tandem-echo" '("cat") ,handlers)))
     (unwind-protect (progn ,@body)
       (tandem-rpc-close ,var 5))))

(ert-deftest tandem-rpc-request-round-trip ()
  "A request, its handler's result as the reply, and the callback."
  (let (seen reply)
    (tandem-rpc-test--with-echo rpc
        (list :request (lambda (method params) (setq seen (list method params)) '((ok . t))))
      (tandem-rpc-request rpc "diff/open" '((id . "d1") (text . "文件 ✓")) (lambda (err result) (setq reply (list err result))))
      (should (tandem-rpc-test--wait (lambda () reply)))
      (should (equal seen '("diff/open" ((id . "d1") (text . "文件 ✓")))))
      (should (equal reply '(nil ((ok . t))))))))

(ert-deftest tandem-rpc-error-reply ()
  "A handler that signals an error makes an error reply with its message."
  (let (reply)
    (tandem-rpc-test--with-echo rpc
        (list :request (lambda (_method _params) (error "Cannot show this")))
      (tandem-rpc-request rpc "diff/open" nil (lambda (err result) (setq reply (list err result))))
      (should (tandem-rpc-test--wait (lambda () reply)))
      (should (equal (alist-get 'code (car reply)) -32000))
      (should (equal (alist-get 'message (car reply)) "Cannot show this")))))

(ert-deftest tandem-rpc-long-line ()
  "A message of more than a MiB, in many pieces of output, arrives whole."
  (let* ((text (concat (make-string (* 1024 1024) ?x) "\n\t\"ü文件\"" (make-string 1000 ?y)))
         got)
    (tandem-rpc-test--with-echo rpc
        (list :notification (lambda (method params) (setq got (list method params))))
      (tandem-rpc-notify rpc "big" `((content . ,text)))
      (should (tandem-rpc-test--wait (lambda () got)))
      (should (equal (car got) "big"))
      (should (equal (alist-get 'content (cadr got)) text)))))

(ert-deftest tandem-rpc-write-within-a-write ()
  "A message sent while a long one waits for the process to read arrives whole, after it.
The long one is sent from the connection's buffer; a timer that runs
during the wait writes another message through the same buffer."
  (let* ((text (make-string (* 1024 1024) ?x))
         (go (make-temp-name (expand-file-name "tandem-rpc-go-" temporary-file-directory)))
         (got '())
         (sent nil)
         nested)
    ;; The process reads only once GO exists: the long message fills the pipe,
    ;; and Emacs waits, running timers.
    (let ((rpc (tandem-rpc-start "tandem-late" `("sh" "-c" "while [ ! -e \"$0\" ]; do sleep 0.01; done; exec cat" ,go)
                                 :notification (lambda (method params) (push (cons method params) got)))))
      (unwind-protect
          (progn
            (run-at-time 0 nil (lambda ()
                                 (setq nested (not sent))
                                 (write-region "" nil go)
                                 (tandem-rpc-notify rpc "small" '((text . "é")))))
            (tandem-rpc-notify rpc "long" `((text . ,text)))
            (setq sent t)
            (should nested)
            (should (tandem-rpc-test--wait (lambda () (= (length got) 2))))
            (should (equal (reverse got) `(("long" (text . ,text)) ("small" (text . "é"))))))
        (tandem-rpc-close rpc 5)
        (delete-file go)))))

(ert-deftest tandem-rpc-json-text-params ()
  "Params given as JSON text, in pieces and as UTF-8 bytes, arrive as written."
  (let ((got '())
        (bytes (encode-coding-string "\"文件 ✓\"" 'utf-8)))
    (tandem-rpc-test--with-echo rpc
        (list :notification (lambda (method params) (push (cons method params) got)))
      (tandem-rpc-notify-all rpc `(("one" . "{\"a\":\"é\"}")
                                   ("two" . ("{\"b\":" ,bytes ",\"c\":\"ü\"}"))
                                   ("three" . ((d . 1)))))
      (should (tandem-rpc-test--wait (lambda () (= (length got) 3))))
      (should (equal (reverse got) '(("one" (a . "é")) ("two" (b . "文件 ✓") (c . "ü"))
                                     ("three" (d . 1))))))))

(ert-deftest tandem-rpc-bad-lines-and-order ()
  "A line that is not JSON is skipped; messages arrive in order."
  (let (got)
    (tandem-rpc-test--with-echo rpc
        (list :notification (lambda (method _params) (push method got)))
      (process-send-string (tandem-rpc-process rpc) "not json\n{\"jsonrpc\":\"2.0\",\"method\":\"one\"}\n{\"jsonrpc\":")
      (process-send-string (tandem-rpc-process rpc) "\"2.0\",\"method\":\"two\"}\n")
      (should (tandem-rpc-test--wait (lambda () (= (length got) 2))))
      (should (equal (reverse got) '("one" "two"))))))

(ert-deftest tandem-rpc-exit ()
  "The end of the process is reported once; a pending request gets an error."
  (let ((exits '()) reply)
    (let ((rpc (tandem-rpc-start "tandem-exit" '("sh" "-c" "read line; exit 3")
                                 :exit (lambda (status) (push status exits)))))
      (tandem-rpc-request rpc "anything" nil (lambda (err _result) (setq reply err)))
      (should (tandem-rpc-test--wait (lambda () exits)))
      (tandem-rpc-close rpc 1)
      (should (equal exits '(3)))
      (should (equal (alist-get 'code reply) -32099)))))

(ert-deftest tandem-rpc-end ()
  "A process that outlives the wait, or whose wait is done, is deleted."
  (let ((exits '()))
    (dolist (case '((("sleep" "60") . ignore) (("cat") . always)))
      (let ((rpc (tandem-rpc-start "tandem-end" (car case)
                                   :exit (lambda (status) (push status exits)))))
        (tandem-rpc-end rpc (cdr case) 0.2)
        (should-not (tandem-rpc-live-p rpc))))
    (should (tandem-rpc-test--wait (lambda () (= (length exits) 2))))))

(ert-deftest tandem-rpc-stderr-lines ()
  "What the process writes to stderr arrives line by line."
  (let ((lines '()))
    (let ((rpc (tandem-rpc-start "tandem-stderr" '("sh" "-c" "printf 'one\\ntw' >&2; printf 'o\\n' >&2; read x")
                                 :stderr (lambda (line) (push line lines)))))
      (unwind-protect
          (should (tandem-rpc-test--wait (lambda () (equal (reverse lines) '("one" "two")))))
        (tandem-rpc-close rpc 1)))))

(provide 'tandem-rpc-test)
;;; tandem-rpc-test.el ends here
