;;; tandem-bridge.el --- The bridge protocol, spoken with the sidecar  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; The bridge protocol (docs/bridge-protocol.md in the repository).  The
;; only file that knows its method names and the shape of their params:
;; the rest of the package calls functions here and is called back with
;; plain values.

;;; Code:

(require 'cl-lib)
(require 'tandem-rpc)

(defconst tandem-bridge--protocol '((min . "1.3") (max . "1.3"))
  "The version this package speaks: the one of the sidecar it ships with.")

(defconst tandem-bridge--diff-not-open -32011
  "The error of an answer for a diff that is not open any more.")

(defconst tandem-bridge--allocator "GLIBC_TUNABLES=glibc.malloc.mmap_threshold=65536"
  "Added to the sidecar's environment unless the user sets it.
glibc then maps each large buffer on its own and gives it back once
freed (docs/bridge-protocol.md in the repository, \"Framing\").")

(defun tandem-bridge--environment ()
  "Return the environment to start the sidecar in: Emacs's, changed.
NODE_EXTRA_CA_CERTS is emptied: Node would read and parse those
certificates as it starts, and the sidecar makes no TLS connection.
`tandem-bridge--allocator' is added unless GLIBC_TUNABLES is set."
  (append (list "NODE_EXTRA_CA_CERTS=")
          (unless (getenv "GLIBC_TUNABLES") (list tandem-bridge--allocator))
          process-environment))

(cl-defstruct (tandem-bridge (:constructor tandem-bridge--make)
                             (:copier nil))
  "A sidecar and how to speak to it."
  rpc
  editor
  selection)

(defun tandem-bridge--warnings (list)
  "The engine's warnings in LIST that have a message, as a list of alists.
Each holds `code', `cli', `message' and `fix'."
  (cl-remove-if-not (lambda (warning) (stringp (alist-get 'message warning)))
                    (append list nil)))

(defun tandem-bridge-start (command &rest editor)
  "Start the sidecar COMMAND (a list) and return its bridge.
EDITOR is a plist of the functions the bridge calls:
`:show-diff' (DIFF), DIFF an alist of `id', `path', `old' (nil for a
  new file), `new' and `client' (its name, or nil);
`:close-diff' (ID), returning the proposal's text.  Both signal an
  error, the reply the sidecar gets, when they cannot;
`:diff-closed' (NOTICE), after `:close-diff': an alist of `id', `path',
  `message', the engine's words on why the CLI closed the diff, and
  `kept-text', the user's edits when those reach no file (else nil),
  to keep where they can take them;
`:clients-changed' (CLIENTS), `:warnings-changed' (WARNINGS),
`:env-changed' (ENV, an alist of names and values);
`:diff-outcome' (OUTCOME), an alist of `id', `path', `kind' and
  `message': seconds after a close with reason \"terminal\", whether
  the CLI wrote the file;
`:log' (LINE) and `:exited' (STATUS)."
  (let ((bridge (tandem-bridge--make :editor editor))
        (process-environment (tandem-bridge--environment)))
    (setf (tandem-bridge-rpc bridge)
          (tandem-rpc-start
           "tandem" command
           :request (lambda (method params) (tandem-bridge--request bridge method params))
           :notification (lambda (method params) (tandem-bridge--notification bridge method params))
           :stderr (plist-get editor :log)
           :exit (plist-get editor :exited)))
    bridge))

(defun tandem-bridge--call (bridge name &rest args)
  "Call the editor's function NAME of BRIDGE with ARGS."
  (apply (plist-get (tandem-bridge-editor bridge) name) args))

(defun tandem-bridge--request (bridge method params)
  "Answer the sidecar's request METHOD with PARAMS for BRIDGE."
  (pcase method
    ("diff/open"
     (let-alist params
       (unless (and (or (stringp .id) (numberp .id)) (stringp .filePath) (stringp .newContent))
         (error "The diff/open request needs an id, a filePath and a newContent string"))
       (tandem-bridge--call bridge :show-diff
                            `((id . ,.id) (path . ,.filePath) (new . ,.newContent)
                              (old . ,(and (stringp .oldContent) .oldContent))
                              (client . ,(and (stringp .client.name) .client.name))))
       nil))
    ("diff/close"
     `((content . ,(tandem-bridge--call bridge :close-diff (alist-get 'id params)))))
    (_ (error "Unknown method %s" method))))

(defun tandem-bridge--notification (bridge method params)
  "Take the sidecar's notification METHOD with PARAMS for BRIDGE."
  (let-alist params
    (pcase method
      ("env/changed" (tandem-bridge--call bridge :env-changed .env))
      ("status" (tandem-bridge--call bridge :clients-changed (append .clients nil)))
      ("warnings" (tandem-bridge--call bridge :warnings-changed (tandem-bridge--warnings .warnings)))
      ("diff/closed"
       (when (stringp .message)
         (tandem-bridge--call bridge :diff-closed
                              `((id . ,.id) (path . ,.filePath) (message . ,.message)
                                (kept-text . ,(and (stringp .keptText) .keptText))))))
      ("diff/outcome"
       (when (stringp .message)
         (tandem-bridge--call bridge :diff-outcome
                              `((id . ,.id) (path . ,.filePath) (kind . ,.kind) (message . ,.message))))))))

(defun tandem-bridge-live-p (bridge)
  "Return non-nil if the sidecar of BRIDGE is alive."
  (tandem-rpc-live-p (tandem-bridge-rpc bridge)))

(defun tandem-bridge-pid (bridge)
  "The process id of the sidecar of BRIDGE, or nil once it ended."
  (and (tandem-bridge-live-p bridge)
       (process-id (tandem-rpc-process (tandem-bridge-rpc bridge)))))

(defun tandem-bridge-initialize (bridge editor callback)
  "Start the engine of BRIDGE for EDITOR; CALLBACK takes (ERROR SESSION).
EDITOR is an alist of `name', `display-name', `version', `pid' and
`folders' (a list).  ERROR is a message or nil; SESSION an alist of
`port', `env', `discovery-files', `warnings' and `selection-limit' (how
many characters of a selection the CLIs keep, or nil)."
  (tandem-rpc-request
   (tandem-bridge-rpc bridge) "initialize"
   (let-alist editor
     `((protocol . ,tandem-bridge--protocol)
       (editor . ((name . ,.name) (displayName . ,.display-name) (version . ,.version) (pid . ,.pid)))
       (workspaceFolders . ,(vconcat .folders))))
   (lambda (err result)
     (if (or err (not (numberp (alist-get 'port result))))
         (funcall callback (or (alist-get 'message err) "unexpected reply to initialize") nil)
       (let-alist result
         (funcall callback nil `((port . ,.port) (env . ,.env)
                                 (discovery-files . ,(append .discoveryFiles nil))
                                 (warnings . ,(tandem-bridge--warnings .warnings))
                                 (selection-limit . ,(let ((limit (alist-get 'selectedText .limits)))
                                                       (and (natnump limit) limit))))))))))

(defun tandem-bridge-context (bridge facts)
  "Send the sidecar of BRIDGE FACTS, what one look saw, in one write.
Each fact is (opened FILE), (closed FILE), (focused FILE) or (cursor
FILE LINE CHARACTER SELECTED ANCHOR), SELECTED being the region's text
or nil, ANCHOR where the region began, (LINE CHARACTER), or nil."
  (let ((notifications '()))
    (dolist (fact facts)
      (push (pcase fact
              (`(opened ,file) `("file/opened" (path . ,file)))
              (`(closed ,file) `("file/closed" (path . ,file)))
              (`(focused ,file) `("file/focused" (path . ,file)))
              (`(cursor ,file ,line ,character ,selected ,anchor)
               `("cursor/changed"
                 . ,(tandem-bridge--cursor-params bridge file line character selected anchor))))
            notifications))
    (tandem-rpc-notify-all (tandem-bridge-rpc bridge) (nreverse notifications))))

(defun tandem-bridge--cursor-params (bridge file line character selected anchor)
  "The params of `cursor/changed' for FILE, LINE and CHARACTER.
SELECTED is the region's text or nil, ANCHOR (LINE CHARACTER) where it
began.  When SELECTED is the text BRIDGE sent last (the same string, as
the tracker keeps it while the region's start and text stay), its JSON is
not made again: the connection writes the UTF-8 bytes made the first
time, copying them nowhere."
  (let ((params `((path . ,file) (line . ,line) (character . ,character)
                  ,@(and anchor `((anchor (line . ,(car anchor))
                                          (character . ,(cadr anchor))))))))
    (if (not selected)
        params
      (unless (eq selected (car (tandem-bridge-selection bridge)))
        (setf (tandem-bridge-selection bridge)
              (cons selected (tandem-rpc-utf-8 (json-serialize selected)))))
      (list (substring (json-serialize params) 0 -1)
            ",\"selectedText\":" (cdr (tandem-bridge-selection bridge)) "}"))))

(defun tandem-bridge--answer (bridge method params callback)
  "Send the answer METHOD with PARAMS over BRIDGE; CALLBACK takes ERROR.
ERROR is nil once the answer was taken, else an alist of `message' and
`gone' (the diff is not open there any more)."
  (tandem-rpc-request (tandem-bridge-rpc bridge) method params
                      (lambda (err _result)
                        (funcall callback
                                 (and err `((message . ,(alist-get 'message err))
                                            (gone . ,(eql (alist-get 'code err)
                                                          tandem-bridge--diff-not-open))))))))

(defun tandem-bridge-accept-diff (bridge id content callback)
  "Tell the sidecar of BRIDGE that the user accepted diff ID with CONTENT.
CONTENT is the whole text, the user's edits included; CALLBACK as for
`tandem-bridge--answer'."
  (tandem-bridge--answer bridge "diff/accepted" `((id . ,id) (content . ,content)) callback))

(defun tandem-bridge-reject-diff (bridge id callback)
  "Tell the sidecar of BRIDGE that the user rejected diff ID, or closed it.
CALLBACK as for `tandem-bridge--answer'."
  (tandem-bridge--answer bridge "diff/rejected" `((id . ,id)) callback))

(defun tandem-bridge-mention (bridge file lines callback)
  "Put FILE, or its LINES, in the prompt of each CLI of BRIDGE.
LINES is nil (the whole file) or (FIRST . LAST), 1-based; Claude Code
then shows `@file#LFIRST-LAST' in its prompt.  CALLBACK takes (ERROR
ANSWER): ERROR a message or nil, ANSWER an alist of `ok' (whether a CLI
received it) and `message' (what to tell the user)."
  (tandem-rpc-request
   (tandem-bridge-rpc bridge) "mention"
   `((path . ,file)
     ,@(and lines `((lines . ((start . ,(car lines)) (end . ,(cdr lines)))))))
   (lambda (err result)
     (let ((message (alist-get 'message result)))
       (if (or err (not (stringp message)))
           (funcall callback (or (alist-get 'message err) "unexpected reply to mention") nil)
         (funcall callback nil `((ok . ,(eq (alist-get 'ok result) t)) (message . ,message))))))))

(defun tandem-bridge-stop (bridge timeout)
  "End the sidecar of BRIDGE within TIMEOUT seconds.
`shutdown' makes it reject every open diff and remove its discovery
files; having replied, it need not be waited for."
  (let ((rpc (tandem-bridge-rpc bridge))
        (replied nil))
    (when (tandem-rpc-live-p rpc)
      (tandem-rpc-request rpc "shutdown" nil (lambda (&rest _) (setq replied t)))
      (tandem-rpc-end rpc (lambda () replied) timeout))))

(defun tandem-bridge-close (bridge timeout)
  "Close the input of BRIDGE's sidecar; wait TIMEOUT seconds at most for it."
  (tandem-rpc-close (tandem-bridge-rpc bridge) timeout))

(provide 'tandem-bridge)
;;; tandem-bridge.el ends here
