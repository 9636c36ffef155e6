;;; tandem.el --- Companion for Gemini CLI and Qwen Code in IDE mode  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;; Author: The Tandem authors
;; Version: 0.1.0
;; Package-Requires: ((emacs "28.1"))
;; Keywords: tools, convenience
;; URL: https://github.com/OWNER/tandem

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Tandem makes the IDE mode of Gemini CLI and Qwen Code work in Emacs:
;; a CLI started from Emacs (or in any terminal inside the project) sees
;; the file you are looking at, point and the region, and shows each edit
;; it proposes as a diff in Emacs, to accept with `C-c C-c' or reject with
;; `C-c C-k'.
;;
;; Turn on `tandem-mode'.  It starts the sidecar, `tandem bridge', for
;; the current project and puts the variables the CLIs look for into
;; `process-environment', so `M-x shell', `term', `vterm', `eat' and
;; `compile' started afterwards connect.  `M-x tandem-run-gemini' and
;; `M-x tandem-run-qwen' start a CLI in a terminal buffer;
;; `M-x tandem-status' says what is connected, and what stops a CLI from
;; showing its edits here (IDE mode off, an approval mode that writes
;; without asking), with the fix.  `M-x tandem-doctor' explains whether a
;; CLI started in the project connects; `M-x tandem-env' copies the line
;; that connects a CLI in a terminal outside Emacs.
;;
;; The sidecar is the Node program of this repository; build it once with
;; `npm run build:sidecar' in the repository.
;;
;; Tested on Emacs 28.2 (Debian 12) and on the newest Emacs Debian
;; unstable carries (30.2 in November 2026).

;;; Code:

(require 'cl-lib)
(require 'project)
(require 'tandem-rpc)
(require 'tandem-context)
(require 'tandem-diff)
(require 'tandem-reload)
(require 'tandem-terminal)

(defgroup tandem nil
  "IDE mode of Gemini CLI and Qwen Code in Emacs."
  :group 'tools
  :prefix "tandem-")

(defcustom tandem-node-program "node"
  "The Node.js program that runs the sidecar."
  :type 'string)

(defcustom tandem-sidecar-script nil
  "The sidecar script, `tandem.js'; nil for the one built in this repository.
That one is `packages/cli/dist/tandem.js' beside the `emacs' folder."
  :type '(choice (const :tag "Built in this repository" nil) file))

(defcustom tandem-context-delay 0.05
  "Seconds during which changes of point, region and buffers are gathered."
  :type 'number)

(defcustom tandem-shutdown-timeout 1.0
  "Seconds Emacs waits at most for the sidecar to end."
  :type 'number)

(defcustom tandem-mode-line-format '(:eval (tandem-mode-line))
  "What `tandem-mode' shows in the mode line."
  :type 'sexp
  :risky t)

(defconst tandem--directory
  ;; Through symbolic links (straight.el builds a folder of links to the clone's files), and
  ;; from the source beside a compiled file, to the clone that also holds the sidecar.
  (let ((file (or load-file-name buffer-file-name)))
    (file-name-directory (file-truename (concat (file-name-sans-extension file) ".el"))))
  "The folder of this package's sources, in its clone of the repository.")

(cl-defstruct (tandem-session (:constructor tandem-session--make)
                              (:copier nil))
  "One running sidecar and what Emacs knows of it."
  rpc
  (state 'starting)             ; starting, running, failed or stopped
  error
  folder
  port
  (env '())
  (discovery-files '())
  (clients '())
  ;; The engine's warnings for people: alists of code, cli, message and fix.
  (warnings '())
  context
  diffs
  log)

(defvar tandem--session nil
  "The session `tandem-mode' runs, or nil.")

(defun tandem--sidecar-script ()
  "The sidecar script to run."
  (if tandem-sidecar-script
      (expand-file-name tandem-sidecar-script) ; Node takes `~/' literally.
    (expand-file-name "../packages/cli/dist/tandem.js" tandem--directory)))

(defun tandem--program (&rest args)
  "The command line of the sidecar's program with ARGS."
  (append (list tandem-node-program (tandem--sidecar-script)) args))

(defun tandem-command ()
  "Return the command line of the sidecar."
  (tandem--program "bridge"))

(defun tandem--program-problem ()
  "Why the sidecar's program cannot run, or nil."
  (cond
   ((not (file-readable-p (tandem--sidecar-script)))
    (format "the sidecar is not built: run `npm run build:sidecar' in %s, or set `tandem-sidecar-script'"
            (expand-file-name ".." tandem--directory)))
   ((not (executable-find tandem-node-program))
    (format "cannot start the sidecar: `%s' is not a program (see `tandem-node-program')"
            tandem-node-program))))

(defun tandem--workspace-folder ()
  "The project root of the current buffer, else its `default-directory'."
  (let ((project (project-current nil)))
    (directory-file-name
     (expand-file-name (if project (project-root project) default-directory)))))

(defun tandem--log (session format-string &rest args)
  "Append FORMAT-STRING with ARGS as a line to the log of SESSION."
  (let ((buffer (tandem-session-log session)))
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (let ((inhibit-read-only t))
          (goto-char (point-max))
          (insert (format-time-string "%T ") (apply #'format format-string args) "\n"))))))

(defun tandem--changed ()
  "Show the new state in the mode line."
  (force-mode-line-update t))

(defun tandem--fail (session message)
  "Mark SESSION failed with MESSAGE."
  (setf (tandem-session-state session) 'failed
        (tandem-session-error session) message)
  (tandem--log session "error: %s" message)
  (message "Tandem: %s" message)
  (tandem--changed))

(defun tandem--start ()
  "Start a session for the current project; return it."
  (let* ((folder (tandem--workspace-folder))
         (session (tandem-session--make
                   :folder folder
                   :log (get-buffer-create "*tandem-log*"))))
    (with-current-buffer (tandem-session-log session)
      (setq buffer-read-only t))
    (if-let ((problem (tandem--program-problem)))
        (tandem--fail session problem)
      (setf (tandem-session-diffs session)
            (tandem-diffs-make (lambda (view outcome content callback)
                                 (tandem--answer session view outcome content callback))))
      (setf (tandem-session-rpc session)
            (tandem-rpc-start
             "tandem" (tandem-command)
             :request (lambda (method params) (tandem--request session method params))
             :notification (lambda (method params) (tandem--notification session method params))
             :stderr (lambda (line) (tandem--log session "sidecar: %s" line))
             :exit (lambda (status) (tandem--exited session status))))
      (tandem-rpc-request
       (tandem-session-rpc session) "initialize"
       `((protocol . ((min . "1.0") (max . "1.2")))
         (editor . ((name . "emacs") (displayName . "Emacs")
                    (version . ,emacs-version) (pid . ,(emacs-pid))))
         (workspaceFolders . [,folder]))
       (lambda (err result)
         (cond
          ;; Stopped while starting: nothing more to do.
          ((not (eq (tandem-session-state session) 'starting)))
          ((or err (not (numberp (alist-get 'port result))))
           (tandem--fail session (format "the sidecar did not start: %s"
                                         (or (alist-get 'message err) "unexpected reply to initialize")))
           (tandem-rpc-close (tandem-session-rpc session) tandem-shutdown-timeout))
          (t (tandem--running session result))))))
    (tandem--changed)
    session))

(defun tandem--running (session result)
  "SESSION's sidecar answered `initialize' with RESULT."
  (setf (tandem-session-state session) 'running
        (tandem-session-port session) (alist-get 'port result)
        (tandem-session-discovery-files session) (append (alist-get 'discoveryFiles result) nil))
  (tandem--set-env session (alist-get 'env result))
  (setf (tandem-session-context session)
        (tandem-context-attach (lambda (notifications)
                                 (when (eq (tandem-session-state session) 'running)
                                   (tandem-rpc-notify-all (tandem-session-rpc session) notifications)))
                               tandem-context-delay))
  (tandem--log session "listening on port %d for %s" (tandem-session-port session)
               (tandem-session-folder session))
  (tandem--set-warnings session (alist-get 'warnings result))
  (tandem--changed))

(defun tandem--warning-text (warning)
  "Return WARNING as one line: its message, then its fix."
  (let-alist warning
    (if .fix (concat .message " " .fix) .message)))

(defun tandem--set-warnings (session warnings)
  "Keep WARNINGS, the engine's whole current list, in SESSION.
A new list that is not empty is shown once in the echo area."
  (let ((warnings (cl-remove-if-not (lambda (warning) (stringp (alist-get 'message warning)))
                                    (append warnings nil))))
    (unless (equal warnings (tandem-session-warnings session))
      (setf (tandem-session-warnings session) warnings)
      (dolist (warning warnings)
        (tandem--log session "warning (%s): %s" (alist-get 'code warning) (tandem--warning-text warning)))
      (when warnings
        ;; The fixes are long: they wait in M-x tandem-status.
        (message "Tandem: %s (M-x tandem-status says what to do)"
                 (mapconcat (lambda (warning) (alist-get 'message warning)) warnings "  ")))
      (tandem--changed))))

(defun tandem--request (session method params)
  "Answer the sidecar's request METHOD with PARAMS in SESSION."
  (pcase method
    ("diff/open"
     (tandem-diff-open (tandem-session-diffs session) params)
     (tandem--log session "showing diff %s for %s" (alist-get 'id params) (alist-get 'filePath params))
     nil)
    ("diff/close"
     (let* ((id (alist-get 'id params))
            (view (tandem-diff-find (tandem-session-diffs session) id))
            (content (tandem-diff-close (tandem-session-diffs session) id params)))
       ;; Approved in the terminal: the CLI writes the file now.
       (tandem-reload-after-write (tandem-diff-view-path view))
       `((content . ,content))))
    (_ (error "Unknown method %s" method))))

(defun tandem--notification (session method params)
  "Take the sidecar's notification METHOD with PARAMS in SESSION."
  (pcase method
    ("env/changed" (tandem--set-env session (alist-get 'env params)))
    ("warnings" (tandem--set-warnings session (alist-get 'warnings params)))
    ("diff/outcome" (tandem-diff-outcome params))
    ("status"
     (setf (tandem-session-clients session) (append (alist-get 'clients params) nil))
     (tandem--log session "connected CLIs: %s"
                  (or (mapconcat (lambda (client) (format "%s" (alist-get 'name client)))
                                 (tandem-session-clients session) ", ")
                      "none"))
     (tandem--changed))))

(defun tandem--answer (session view outcome content callback)
  "Send OUTCOME for VIEW in SESSION; CALLBACK takes the reply's error or nil."
  (let ((path (tandem-diff-view-path view))
        (id (tandem-diff-view-id view)))
    (tandem--log session "%s the proposal for %s" outcome path)
    (when (eq outcome 'accepted)
      (tandem-reload-after-write path))
    (if (not (tandem-rpc-live-p (tandem-session-rpc session)))
        (funcall callback nil)
      (tandem-rpc-request (tandem-session-rpc session)
                          (if (eq outcome 'accepted) "diff/accepted" "diff/rejected")
                          (if (eq outcome 'accepted) `((id . ,id) (content . ,content)) `((id . ,id)))
                          (lambda (err _result)
                            (when err
                              (tandem--log session "answer for %s not taken: %s" path (alist-get 'message err)))
                            (funcall callback err))))))

(defun tandem--set-env (session env)
  "Replace SESSION's variables in `process-environment' by ENV."
  (tandem--clear-env session)
  (dolist (pair env)
    (let ((name (symbol-name (car pair)))
          (value (format "%s" (cdr pair))))
      (setenv name value)
      (push name (tandem-session-env session)))))

(defun tandem--clear-env (session)
  "Take SESSION's variables out of `process-environment'."
  (dolist (name (tandem-session-env session))
    (setenv name nil))
  (setf (tandem-session-env session) '()))

(defun tandem--exited (session status)
  "SESSION's sidecar ended with STATUS."
  (when (tandem-session-context session)
    (tandem-context-detach (tandem-session-context session))
    (setf (tandem-session-context session) nil))
  ;; With the sidecar gone no answer can reach a CLI: the views just close.
  (when (tandem-session-diffs session)
    (tandem-diff-end-all (tandem-session-diffs session)))
  (tandem--clear-env session)
  (setf (tandem-session-port session) nil
        (tandem-session-clients session) '()
        (tandem-session-warnings session) '()
        (tandem-session-discovery-files session) '())
  (if (memq (tandem-session-state session) '(stopped failed))
      (tandem--changed)
    (tandem--fail session (format "the sidecar exited (status %d); see the buffer %s"
                                  status (buffer-name (tandem-session-log session))))))

(defun tandem--stop (session)
  "Stop SESSION; its sidecar rejects open diffs and deletes the discovery files.
Waits `tandem-shutdown-timeout' seconds at most."
  (let ((rpc (tandem-session-rpc session))
        (failed (eq (tandem-session-state session) 'failed)))
    (setf (tandem-session-state session) 'stopped)
    (when (and rpc (tandem-rpc-live-p rpc))
      (let ((replied nil))
        (tandem-rpc-request rpc "shutdown" nil (lambda (&rest _) (setq replied t)))
        ;; Having replied, the sidecar has cleaned up: it need not be waited for.
        (tandem-rpc-end rpc (lambda () replied) tandem-shutdown-timeout)))
    (tandem--exited session 0)
    (unless failed
      (tandem--log session "stopped"))))

(defun tandem--kill-emacs ()
  "Stop the session as Emacs exits."
  (when tandem--session
    (tandem--stop tandem--session)
    (setq tandem--session nil)))

;;;###autoload
(define-minor-mode tandem-mode
  "Let Gemini CLI and Qwen Code connect to this Emacs in IDE mode.
Turning it on starts the sidecar for the current project (its
`project.el' root, else `default-directory'); terminals started
afterwards connect.  Turning it off, or quitting Emacs, stops the
sidecar: open diffs are rejected and the discovery files removed."
  :global t
  :group 'tandem
  :lighter tandem-mode-line-format
  (when tandem--session
    (tandem--stop tandem--session)
    (setq tandem--session nil))
  (if tandem-mode
      (progn
        (setq tandem--session (tandem--start))
        (add-hook 'kill-emacs-hook #'tandem--kill-emacs))
    (remove-hook 'kill-emacs-hook #'tandem--kill-emacs)))

(defun tandem-mode-line ()
  "The mode line text of `tandem-mode': how many CLIs are connected.
A `!' after the count says the engine has warnings: see `tandem-status'."
  (let ((session tandem--session))
    (pcase (and session (tandem-session-state session))
      ('running (format " Tandem[%d]%s" (length (tandem-session-clients session))
                        (if (tandem-session-warnings session) "!" "")))
      ('starting " Tandem[…]")
      ('failed " Tandem[!]")
      (_ ""))))

(defun tandem-status-data ()
  "Return the state of `tandem-mode' as an alist."
  (let ((session tandem--session))
    `((state . ,(if session (tandem-session-state session) 'stopped))
      (error . ,(and session (tandem-session-error session)))
      (folder . ,(and session (tandem-session-folder session)))
      (port . ,(and session (tandem-session-port session)))
      (clients . ,(and session (mapcar (lambda (client) (alist-get 'name client))
                                       (tandem-session-clients session))))
      (warnings . ,(and session (tandem-session-warnings session)))
      (discovery-files . ,(and session (tandem-session-discovery-files session)))
      (diffs . ,(and session (tandem-session-diffs session)
                     (mapcar (lambda (view) (list (tandem-diff-view-id view) (tandem-diff-view-path view)))
                             (tandem-diffs-views (tandem-session-diffs session)))))
      (log . ,(and session (buffer-name (tandem-session-log session)))))))

;;;###autoload
(defun tandem-status ()
  "Show the port, the CLIs, the warnings, the discovery files and the log."
  (interactive)
  (let-alist (tandem-status-data)
    (with-help-window "*tandem-status*"
      (princ (format "Tandem: %s%s\n" .state (if .error (format " (%s)" .error) "")))
      (when .folder (princ (format "Folder:  %s\n" .folder)))
      (when .port (princ (format "Port:    %d\n" .port)))
      (princ (format "CLIs:    %s\n" (if .clients (mapconcat (lambda (name) (format "%s" name)) .clients ", ") "none connected")))
      (dolist (warning .warnings)
        (let-alist warning
          (princ (format "Warning: %s\n" .message))
          (when .fix (princ (format "  Fix:   %s\n" .fix)))))
      (princ "Discovery files:\n")
      (dolist (file .discovery-files) (princ (format "  %s\n" file)))
      (princ (format "Open diffs: %d\n" (length .diffs)))
      (dolist (diff .diffs) (princ (format "  %s  %s\n" (car diff) (cadr diff))))
      (princ (format "Log:     buffer %s\n" (or .log "none")))
      (princ (format "Sidecar: %s\n" (mapconcat #'identity (tandem-command) " "))))))

(defun tandem--folder ()
  "The folder of the running session, else that of the current buffer."
  (or (and tandem--session (tandem-session-folder tandem--session))
      (tandem--workspace-folder)))

(defun tandem--program-or-error ()
  "Signal a `user-error' when the sidecar's program cannot run."
  (when-let ((problem (tandem--program-problem)))
    (user-error "Tandem: %s" problem)))

;;;###autoload
(defun tandem-doctor ()
  "Explain whether a CLI started in the project connects, and how to fix it.
Runs `tandem doctor' with the environment of the terminals Emacs
opens and shows its report in the buffer *tandem-doctor*; \`g' there
runs it again."
  (interactive)
  (tandem--program-or-error)
  (let ((folder (tandem--folder))
        (buffer (get-buffer-create "*tandem-doctor*")))
    (with-current-buffer buffer
      ;; A report still coming in would mix with the new one.
      (when-let ((running (get-buffer-process buffer)))
        (delete-process running))
      (let ((inhibit-read-only t))
        (erase-buffer))
      (special-mode)
      (setq default-directory (file-name-as-directory folder))
      (setq-local revert-buffer-function (lambda (&rest _) (tandem-doctor))))
    (make-process
     :name "tandem-doctor"
     :buffer buffer
     :command (tandem--program "doctor" "--cwd" folder)
     :connection-type 'pipe
     :noquery t
     :filter (lambda (process text)
               (when (buffer-live-p (process-buffer process))
                 (with-current-buffer (process-buffer process)
                   (save-excursion
                     (let ((inhibit-read-only t))
                       (goto-char (point-max))
                       (insert text))))))
     ;; Its exit status only repeats the report (1: a CLI would not connect).
     :sentinel #'ignore)
    (pop-to-buffer buffer)))

(defun tandem-env-line ()
  "The shell line that connects a CLI in another terminal to this Emacs."
  (let ((port (and tandem--session (tandem-session-port tandem--session))))
    (format "eval \"$(%s)\""
            (mapconcat #'shell-quote-argument
                       (apply #'tandem--program "env" "--cwd" (tandem--folder)
                              (and port (list "--port" (number-to-string port))))
                       " "))))

;;;###autoload
(defun tandem-env ()
  "Show, and copy to the kill ring, the line to paste into another terminal.
Run there before Gemini CLI or Qwen Code, it makes the CLI connect to
this Emacs (a tmux pane, a terminal outside Emacs)."
  (interactive)
  (tandem--program-or-error)
  (let ((line (tandem-env-line)))
    (kill-new line)
    (message "Copied; paste it into the terminal before starting the CLI: %s" line)))

(defun tandem--run (name command)
  "Run the shell COMMAND as NAME in a terminal, with `tandem-mode' on."
  (unless tandem-mode
    (tandem-mode 1))
  (let ((session tandem--session)
        (deadline (+ (float-time) 10)))
    ;; The CLI looks for the editor once, at its start: wait until Tandem runs.
    (while (and (eq (tandem-session-state session) 'starting) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (unless (eq (tandem-session-state session) 'running)
      (user-error "Tandem is not running: %s" (or (tandem-session-error session) "see M-x tandem-status")))
    (tandem-terminal-run name command (tandem-session-folder session))))

;;;###autoload
(defun tandem-run-gemini ()
  "Start Gemini CLI in a terminal buffer, connected to this Emacs."
  (interactive)
  (tandem--run "gemini" tandem-gemini-command))

;;;###autoload
(defun tandem-run-qwen ()
  "Start Qwen Code in a terminal buffer, connected to this Emacs."
  (interactive)
  (tandem--run "qwen" tandem-qwen-command))

(provide 'tandem)
;;; tandem.el ends here
