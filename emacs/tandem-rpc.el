;;; tandem-rpc.el --- JSON-RPC 2.0, one message per line, over a process  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; The sidecar speaks JSON-RPC 2.0 with one message per line (see
;; docs/bridge-protocol.md).  `jsonrpc.el' frames messages with
;; Content-Length headers instead, so this file is the small line-based
;; connection Tandem needs: requests and notifications both ways, replies
;; matched by id, partial and very long lines taken as they come.

;;; Code:

(require 'cl-lib)

(defconst tandem-rpc--version "2.0"
  "The JSON-RPC version, which every message names.")

(defconst tandem-rpc--notification-start
  (format "{\"jsonrpc\":\"%s\",\"method\":" tandem-rpc--version)
  "How a notification whose params are written as they come starts.")

(defconst tandem-rpc--server-error -32000
  "The error of a request this side could not answer.")

(defconst tandem-rpc--exited -32099
  "The error of a request still waiting when the process ended.")

(cl-defstruct (tandem-rpc (:constructor tandem-rpc--make)
                          (:copier nil))
  "A JSON-RPC connection to a process."
  process
  stderr
  ;; A unibyte buffer: each message is written into it, then sent from it.
  output
  (next-id 0)
  (pending (make-hash-table :test #'eql))
  ;; Where the current line starts in the process buffer.
  (line-start 1)
  request-handler
  notification-handler
  stderr-handler
  exit-handler)

(defun tandem-rpc-start (name command &rest handlers)
  "Start COMMAND (a list) as process NAME and return a connection to it.
HANDLERS are keyword arguments:
`:request' (METHOD PARAMS) returns the result of a request, or signals
  an error whose message becomes the error reply;
`:notification' (METHOD PARAMS) takes a notification;
`:stderr' (LINE) takes each line the process writes to stderr;
`:exit' (STATUS) is called once the process has ended."
  (let* ((rpc (tandem-rpc--make
               :request-handler (plist-get handlers :request)
               :notification-handler (plist-get handlers :notification)
               :stderr-handler (plist-get handlers :stderr)
               :exit-handler (plist-get handlers :exit)))
         (stderr (make-pipe-process
                  :name (concat name " stderr")
                  :buffer (generate-new-buffer (format " *%s stderr*" name))
                  :coding 'utf-8-unix
                  :noquery t
                  :filter (tandem-rpc--line-filter
                           (lambda (line)
                             (when (tandem-rpc-stderr-handler rpc)
                               (funcall (tandem-rpc-stderr-handler rpc) line))))
                  :sentinel #'ignore))
         (process (make-process
                   :name name
                   :command command
                   :buffer (generate-new-buffer (format " *%s*" name))
                   :connection-type 'pipe
                   :coding 'utf-8-unix
                   :noquery t
                   :stderr stderr
                   :filter (lambda (proc output) (tandem-rpc--filter rpc proc output))
                   :sentinel (lambda (proc _event) (tandem-rpc--sentinel rpc proc)))))
    (setf (tandem-rpc-process rpc) process
          (tandem-rpc-stderr rpc) stderr
          (tandem-rpc-output rpc) (tandem-rpc--output-buffer name))
    rpc))

(defun tandem-rpc--output-buffer (name)
  "A new unibyte buffer for what is written to process NAME."
  (with-current-buffer (generate-new-buffer (format " *%s output*" name) t)
    (set-buffer-multibyte nil)
    (current-buffer)))

(defun tandem-rpc--line-filter (take-line)
  "Return a process filter that gives TAKE-LINE each complete line of output."
  (let ((partial ""))
    (lambda (_proc output)
      (let ((lines (split-string (concat partial output) "\n")))
        (setq partial (car (last lines)))
        (dolist (line (butlast lines))
          (funcall take-line line))))))

(defun tandem-rpc--filter (rpc proc output)
  "Append OUTPUT of PROC to its buffer and handle each complete line for RPC.
Output arrives in pieces of a few kilobytes: searching for the end of a
line only in the new piece keeps a long message linear in its size."
  (let ((buffer (process-buffer proc))
        (lines '()))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (goto-char (point-max))
        (insert output)
        (goto-char (- (point-max) (length output)))
        (while (search-forward "\n" nil t)
          (push (buffer-substring-no-properties (tandem-rpc-line-start rpc) (1- (point)))
                lines)
          (setf (tandem-rpc-line-start rpc) (point)))
        (when (> (tandem-rpc-line-start rpc) 1)
          (delete-region 1 (tandem-rpc-line-start rpc))
          (setf (tandem-rpc-line-start rpc) 1))))
    (dolist (line (nreverse lines))
      (tandem-rpc--dispatch rpc line))))

(defun tandem-rpc--parse (line)
  "Return the message in LINE as an alist, or nil when it is not JSON."
  (condition-case nil
      (json-parse-string line :object-type 'alist :null-object nil :false-object nil)
    (json-parse-error nil)))

(defun tandem-rpc--dispatch (rpc line)
  "Handle one LINE the process of RPC wrote."
  (let* ((message (tandem-rpc--parse line))
         (id (alist-get 'id message))
         (method (alist-get 'method message)))
    (cond
     ((null message) nil)
     ((and method id) (tandem-rpc--answer rpc id method (alist-get 'params message)))
     (method
      (when (tandem-rpc-notification-handler rpc)
        (funcall (tandem-rpc-notification-handler rpc) method (alist-get 'params message))))
     (id
      (let ((callback (gethash id (tandem-rpc-pending rpc))))
        (remhash id (tandem-rpc-pending rpc))
        (when callback
          (funcall callback (alist-get 'error message) (alist-get 'result message))))))))

(defun tandem-rpc--answer (rpc id method params)
  "Reply to request ID of RPC: METHOD with PARAMS, through the request handler."
  (condition-case err
      (let ((result (funcall (tandem-rpc-request-handler rpc) method params)))
        (tandem-rpc--send rpc `((id . ,id) (result . ,(or result #s(hash-table))))))
    (error
     (tandem-rpc--send rpc `((id . ,id)
                             (error . ((code . ,tandem-rpc--server-error)
                                       (message . ,(error-message-string err)))))))))

(defun tandem-rpc-utf-8 (text)
  "TEXT, a string, as UTF-8 bytes: a unibyte string, TEXT itself if it is one.
A connection writes a unibyte string as it is, without copying it."
  (if (multibyte-string-p text) (encode-coding-string text 'utf-8-unix t) text))

(defun tandem-rpc--write (rpc insert value)
  "Write VALUE, as INSERT puts it in a buffer, to the process of RPC at once.
INSERT runs in a unibyte buffer: `json-insert' puts UTF-8 bytes there, and
the process sends those bytes from the buffer as they are.  A long message
is copied into no new string, and leaves no garbage to collect.  (What
the process cannot take at once, Emacs copies before it waits, so a write
made meanwhile may use the buffer again.)"
  (let ((process (tandem-rpc-process rpc))
        (buffer (tandem-rpc-output rpc)))
    (when (process-live-p process)
      (unless (buffer-live-p buffer)
        (setq buffer (tandem-rpc--output-buffer (process-name process)))
        (setf (tandem-rpc-output rpc) buffer))
      (with-current-buffer buffer
        (let ((inhibit-modification-hooks t))
          (erase-buffer)
          (funcall insert value))
        (process-send-region process (point-min) (point-max))))))

(defun tandem-rpc--insert-line (message)
  "Insert MESSAGE (an alist) as a line of JSON, its version first."
  (json-insert (cons (cons 'jsonrpc tandem-rpc--version) message))
  (insert "\n"))

(defun tandem-rpc--send (rpc message)
  "Write MESSAGE (an alist, without its version) to the process of RPC, if alive."
  (tandem-rpc--write rpc #'tandem-rpc--insert-line message))

(defun tandem-rpc-request (rpc method params callback)
  "Send request METHOD with PARAMS over RPC.
CALLBACK is called with (ERROR RESULT) once the reply comes, ERROR being
the error object or nil."
  (let ((id (cl-incf (tandem-rpc-next-id rpc))))
    (puthash id callback (tandem-rpc-pending rpc))
    (tandem-rpc--send rpc `((id . ,id) (method . ,method)
                            (params . ,(or params #s(hash-table)))))))

(defun tandem-rpc-notify (rpc method params)
  "Send notification METHOD with PARAMS over RPC."
  (tandem-rpc-notify-all rpc (list (cons method params))))

(defun tandem-rpc-notify-all (rpc notifications)
  "Send NOTIFICATIONS, a list of (METHOD . PARAMS), over RPC in one write.
The other side then reads the events of one editor action together.
PARAMS is an alist, or JSON text already: a string, or a list of strings
written one after the other.  A large value sent again and again is then
encoded once, as a unibyte string (see `tandem-rpc-utf-8'), and written
as it is."
  (when notifications
    (tandem-rpc--write rpc #'tandem-rpc--insert-notifications notifications)))

(defun tandem-rpc--insert-notifications (notifications)
  "Insert NOTIFICATIONS, as `tandem-rpc-notify-all' takes them, a line each."
  (pcase-dolist (`(,method . ,params) notifications)
    (insert tandem-rpc--notification-start)
    (json-insert method)
    (insert ",\"params\":")
    (cond ((stringp params) (insert (tandem-rpc-utf-8 params)))
          ((stringp (car-safe params))
           (dolist (text params) (insert (tandem-rpc-utf-8 text))))
          (t (json-insert params)))
    (insert "}\n")))

(defun tandem-rpc-live-p (rpc)
  "Return non-nil if the process of RPC is alive."
  (process-live-p (tandem-rpc-process rpc)))

(defun tandem-rpc-end (rpc done timeout)
  "Wait for RPC's process to end, or for DONE to return non-nil; then delete it.
Wait TIMEOUT seconds at most.

Emacs runs `kill-emacs-hook' inside its handler of SIGTERM and SIGHUP,
where SIGCHLD is blocked: a process that has exited there still looks
alive, and `accept-process-output' spins on its closed pipe without
ever returning.  Timers do run inside that wait, so one deletes the
process at the deadline, which ends it."
  (let* ((process (tandem-rpc-process rpc))
         (deadline (+ (float-time) timeout))
         (timer (run-at-time timeout nil #'tandem-rpc--delete process)))
    (unwind-protect
        (while (and (not (funcall done)) (process-live-p process) (< (float-time) deadline))
          (accept-process-output process 0.05))
      (cancel-timer timer))
    (tandem-rpc--delete process)))

(defun tandem-rpc--delete (process)
  "Delete PROCESS if it is still alive."
  (when (process-live-p process)
    (delete-process process)))

(defun tandem-rpc-close (rpc timeout)
  "Close the input of RPC's process and wait up to TIMEOUT seconds for it to end.
A process still running then is deleted."
  (when (tandem-rpc-live-p rpc)
    (ignore-errors (process-send-eof (tandem-rpc-process rpc)))
    (tandem-rpc-end rpc #'ignore timeout)))

(defun tandem-rpc--sentinel (rpc process)
  "Report the end of PROCESS, the process of RPC, once."
  (unless (process-live-p process)
    ;; Requests still waiting get an error, so no caller waits forever.
    (let ((pending (tandem-rpc-pending rpc)))
      (setf (tandem-rpc-pending rpc) (make-hash-table :test #'eql))
      (maphash (lambda (_id callback)
                 (funcall callback `((code . ,tandem-rpc--exited) (message . "the sidecar exited")) nil))
               pending))
    (dolist (proc (list process (tandem-rpc-stderr rpc)))
      (when (process-live-p proc)
        (delete-process proc))
      (when (buffer-live-p (process-buffer proc))
        (kill-buffer (process-buffer proc))))
    (when (buffer-live-p (tandem-rpc-output rpc))
      (kill-buffer (tandem-rpc-output rpc)))
    (let ((exit (tandem-rpc-exit-handler rpc)))
      (setf (tandem-rpc-exit-handler rpc) nil)
      (when exit
        (funcall exit (process-exit-status process))))))

(provide 'tandem-rpc)
;;; tandem-rpc.el ends here
