;;; tandem-status.el --- How a session reads to people  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; The mode line of `tandem-mode' and `M-x tandem-status'.

;;; Code:

(require 'tandem-session)

(defun tandem-mode-line ()
  "The mode line text of `tandem-mode': how many CLIs are connected.
A `!' after the count says the engine has warnings: see `tandem-status'.
The mode line asks at every redisplay, after each key that moves point to
another line: the text is made once after each change of the session."
  (let ((session tandem--session))
    (cond ((null session) "")
          ((tandem-session-mode-line session))
          (t (setf (tandem-session-mode-line session) (tandem-status--mode-line-text session))))))

(defun tandem-status--mode-line-text (session)
  "The mode line text for SESSION as it is now."
  (pcase (tandem-session-state session)
    ('running (format " Tandem[%d]%s" (length (tandem-session-clients session))
                      (if (tandem-session-warnings session) "!" "")))
    ('starting " Tandem[…]")
    ('failed " Tandem[!]")
    (_ "")))

(defun tandem-status-data ()
  "Return the state of `tandem-mode' as an alist."
  (let ((session tandem--session))
    `((state . ,(if session (tandem-session-state session) 'stopped))
      (error . ,(and session (tandem-session-error session)))
      (pid . ,(and session (tandem-session-pid session)))
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
      (princ (format "Tandem %s: %s%s\n" (tandem-version) .state
                     (if .error (format " (%s)" .error) "")))
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
      (princ (format "Sidecar: %s\n" (if (tandem-command) (mapconcat #'identity (tandem-command) " ") "none"))))))

(provide 'tandem-status)
;;; tandem-status.el ends here
