;;; tandem-session.el --- One Tandem session: the sidecar and what it links  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; The sidecar's life (starting, running, failed, stopped) and what
;; connects it to Emacs: the context, the diff views, reloads after
;; accepts, the variables for terminals in `process-environment', the
;; engine's warnings and the log.

;;; Code:

(require 'cl-lib)
(require 'project)
(require 'tandem-bridge)
(require 'tandem-sidecar)
(require 'tandem-context)
(require 'tandem-diff)
(require 'tandem-reload)

(defcustom tandem-context-delay 0.05
  "Seconds during which changes of point, region and buffers are gathered."
  :type 'number
  :group 'tandem)

(defcustom tandem-shutdown-timeout 1.0
  "Seconds Emacs waits at most for the sidecar to end."
  :type 'number
  :group 'tandem)

(cl-defstruct (tandem-session (:constructor tandem-session--make)
                              (:copier nil))
  "One running sidecar and what Emacs knows of it."
  bridge
  (state 'starting)             ; starting, running, failed or stopped
  error
  folder
  port
  (env '())
  (discovery-files '())
  (clients '())
  ;; The engine's warnings for people: alists of code, cli, message and fix.
  (warnings '())
  ;; The mode line text, made once after each change (see `tandem-mode-line'); nil until then.
  mode-line
  context
  diffs
  log)

(defvar tandem--session nil
  "The session `tandem-mode' runs, or nil.")

(defun tandem-session--workspace-folder ()
  "The project root of the current buffer, else its `default-directory'."
  (let ((project (project-current nil)))
    (directory-file-name
     (expand-file-name (if project (project-root project) default-directory)))))

(defun tandem-session-folder-here ()
  "The folder of the running session, else that of the current buffer."
  (or (and tandem--session (tandem-session-folder tandem--session))
      (tandem-session--workspace-folder)))

(defun tandem-session--log (session format-string &rest args)
  "Append FORMAT-STRING with ARGS as a line to the log of SESSION."
  (let ((buffer (tandem-session-log session)))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (let ((inhibit-read-only t))
          (goto-char (point-max))
          (insert (format-time-string "%T ") (apply #'format format-string args) "\n"))))))

(defun tandem-session--changed (session)
  "Show the new state of SESSION in the mode line."
  (setf (tandem-session-mode-line session) nil)
  (force-mode-line-update t))

(defun tandem-session--fail (session message)
  "Mark SESSION failed with MESSAGE."
  (setf (tandem-session-state session) 'failed
        (tandem-session-error session) message)
  (tandem-session--log session "error: %s" message)
  (tandem-session--tell "Tandem: %s" message)
  (tandem-session--changed session))

(defun tandem-session--tell (format-string &rest args)
  "Show FORMAT-STRING with ARGS in the echo area, until the next key.
From the init file, it is shown once Emacs has started and is idle: its own
start-up messages would hide it at once."
  (let ((text (apply #'format-message format-string args)))
    (if (or after-init-time noninteractive)
        (message "%s" text)
      (add-hook 'emacs-startup-hook
                (lambda () (run-with-idle-timer 0 nil #'message "%s" text))))))

(defun tandem-session-start ()
  "Start a session for the current project; return it."
  (let* ((folder (tandem-session--workspace-folder))
         (session (tandem-session--make
                   :folder folder
                   :log (get-buffer-create "*tandem-log*"))))
    (with-current-buffer (tandem-session-log session)
      (setq buffer-read-only t))
    (if-let ((problem (tandem-sidecar-problem)))
        (tandem-session--fail session problem)
      (setf (tandem-session-diffs session)
            (tandem-diffs-make (lambda (view outcome content callback)
                                 (tandem-session--answer session view outcome content callback))))
      (let ((bridge (tandem-bridge-start
                     (tandem-command)
                     :show-diff (lambda (diff) (tandem-session--show-diff session diff))
                     :close-diff (lambda (id) (tandem-session--close-diff session id))
                     :diff-closed #'tandem-diff-closed
                     :clients-changed (lambda (clients) (tandem-session--clients-changed session clients))
                     :warnings-changed (lambda (warnings) (tandem-session--warnings-changed session warnings))
                     :env-changed (lambda (env) (tandem-session--set-env session env))
                     :diff-outcome #'tandem-diff-outcome
                     :log (lambda (line) (tandem-session--log session "sidecar: %s" line))
                     :exited (lambda (status) (tandem-session--exited session status)))))
        (setf (tandem-session-bridge session) bridge)
        (tandem-bridge-initialize
         bridge
         `((name . "emacs") (display-name . "Emacs") (version . ,emacs-version) (pid . ,(emacs-pid))
           (folders . (,folder)))
         (lambda (err result)
           (cond
            ;; Stopped while starting: nothing more to do.
            ((not (eq (tandem-session-state session) 'starting)))
            (err
             (tandem-session--fail session (format "the sidecar did not start: %s" err))
             (tandem-bridge-close bridge tandem-shutdown-timeout))
            (t (tandem-session--running session result)))))))
    (tandem-session--changed session)
    session))

(defun tandem-session--running (session result)
  "SESSION's sidecar answered `initialize' with RESULT."
  (let-alist result
    (setf (tandem-session-state session) 'running
          (tandem-session-port session) .port
          (tandem-session-discovery-files session) .discovery-files)
    (tandem-session--set-env session .env)
    (setf (tandem-session-context session)
          (tandem-context-attach (lambda (facts)
                                   (when (eq (tandem-session-state session) 'running)
                                     (tandem-bridge-context (tandem-session-bridge session) facts)))
                                 tandem-context-delay .selection-limit))
    (tandem-session--log session "listening on port %d for %s" .port (tandem-session-folder session))
    (tandem-session--warnings-changed session .warnings)
    (tandem-session--changed session)))

(defun tandem-session-warning-text (warning)
  "Return WARNING as one line: its message, then its fix."
  (let-alist warning
    (if .fix (concat .message " " .fix) .message)))

(defun tandem-session--warnings-changed (session warnings)
  "Keep WARNINGS, the engine's whole current list, in SESSION.
A new list that is not empty is shown once in the echo area."
  (unless (equal warnings (tandem-session-warnings session))
    (setf (tandem-session-warnings session) warnings)
    (dolist (warning warnings)
      (tandem-session--log session "warning (%s): %s" (alist-get 'code warning)
                           (tandem-session-warning-text warning)))
    (when warnings
      ;; The fixes are long: they wait in M-x tandem-status.
      (message "Tandem: %s (M-x tandem-status says what to do)"
               (mapconcat (lambda (warning) (alist-get 'message warning)) warnings "  ")))
    (tandem-session--changed session)))

(defun tandem-session--clients-changed (session clients)
  "Keep CLIENTS, the CLIs connected now, in SESSION."
  (setf (tandem-session-clients session) clients)
  (tandem-session--log session "connected CLIs: %s"
                       (or (mapconcat (lambda (client) (format "%s" (alist-get 'name client)))
                                      clients ", ")
                           "none"))
  (tandem-session--changed session))

(defun tandem-session--show-diff (session diff)
  "Show DIFF in SESSION (see `tandem-bridge-start')."
  (tandem-diff-open (tandem-session-diffs session) diff)
  (tandem-session--log session "showing diff %s for %s" (alist-get 'id diff) (alist-get 'path diff)))

(defun tandem-session--close-diff (session id)
  "Close the diff ID of SESSION at the CLI's request; return the proposal's text."
  (let* ((diffs (tandem-session-diffs session))
         (view (tandem-diff-find diffs id))
         (content (tandem-diff-close diffs id)))
    ;; Approved in the terminal: the CLI writes the file now.
    (tandem-reload-after-write (tandem-diff-view-path view))
    content))

(defun tandem-session--answer (session view outcome content callback)
  "Send OUTCOME for VIEW in SESSION; CALLBACK takes the refusal or nil."
  (let ((path (tandem-diff-view-path view))
        (id (tandem-diff-view-id view))
        (bridge (tandem-session-bridge session)))
    (tandem-session--log session "%s the proposal for %s" outcome path)
    (let ((answered (lambda (err)
                      (when err
                        (tandem-session--log session "answer for %s not taken: %s" path
                                             (alist-get 'message err)))
                      (funcall callback err))))
      (cond
       ((not (and bridge (tandem-bridge-live-p bridge))) (funcall callback nil))
       ((eq outcome 'accepted)
        ;; Before the CLI can write: the buffer of the file follows what it writes.
        (tandem-reload-after-write path)
        (tandem-bridge-accept-diff bridge id content answered))
       (t (tandem-bridge-reject-diff bridge id answered))))))

(defun tandem-session--set-env (session env)
  "Replace SESSION's variables in `process-environment' by ENV."
  (tandem-session--clear-env session)
  (dolist (pair env)
    (let ((name (symbol-name (car pair)))
          (value (format "%s" (cdr pair))))
      (setenv name value)
      (push name (tandem-session-env session)))))

(defun tandem-session--clear-env (session)
  "Take SESSION's variables out of `process-environment'."
  (dolist (name (tandem-session-env session))
    (setenv name nil))
  (setf (tandem-session-env session) '()))

(defun tandem-session--exited (session status)
  "SESSION's sidecar ended with STATUS."
  (when (tandem-session-context session)
    (tandem-context-detach (tandem-session-context session))
    (setf (tandem-session-context session) nil))
  ;; With the sidecar gone no answer can reach a CLI: the views just close.
  (when (tandem-session-diffs session)
    (tandem-diff-end-all (tandem-session-diffs session)))
  (tandem-session--clear-env session)
  (setf (tandem-session-port session) nil
        (tandem-session-clients session) '()
        (tandem-session-warnings session) '()
        (tandem-session-discovery-files session) '())
  (if (memq (tandem-session-state session) '(stopped failed))
      (tandem-session--changed session)
    (tandem-session--fail session (format "the sidecar exited (status %d); see the buffer %s"
                                          status (buffer-name (tandem-session-log session))))))

(defun tandem-session-stop (session)
  "Stop SESSION; its sidecar rejects open diffs and deletes the discovery files.
Waits `tandem-shutdown-timeout' seconds at most."
  (let ((bridge (tandem-session-bridge session))
        (failed (eq (tandem-session-state session) 'failed)))
    (setf (tandem-session-state session) 'stopped)
    (when bridge
      (tandem-bridge-stop bridge tandem-shutdown-timeout))
    (tandem-session--exited session 0)
    (unless failed
      (tandem-session--log session "stopped"))))

(defun tandem-session-mention (session file lines)
  "Send FILE, or its LINES (FIRST . LAST), to Claude Code over SESSION.
The user is told whether a Claude Code received it."
  (unless (eq (tandem-session-state session) 'running)
    (user-error "Tandem is not running: turn on `tandem-mode'"))
  (tandem-bridge-mention
   (tandem-session-bridge session) file lines
   (lambda (err answer)
     (tandem-session--tell "Tandem: %s" (or err (alist-get 'message answer))))))

(defun tandem-session-pid (session)
  "The process id of SESSION's sidecar, or nil."
  (let ((bridge (tandem-session-bridge session)))
    (and bridge (tandem-bridge-pid bridge))))

(provide 'tandem-session)
;;; tandem-session.el ends here
