;;; tandem-sidecar.el --- Where the sidecar is and how it runs  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; Which `tandem' command runs: `tandem-program' when set, else the one
;; built beside this package (in a clone of the repository, run by Node.js),
;; else `tandem' on `exec-path'; why it cannot run; and Tandem's version.

;;; Code:

(declare-function lm-version "lisp-mnt" (&optional file))

(defcustom tandem-program nil
  "The `tandem' command: a program, or a list of a program and its arguments.
nil: the one built beside this package (see `tandem-sidecar-script'),
else `tandem' on the variable `exec-path'."
  :type '(choice (const :tag "Built beside this package, else on the PATH" nil)
                 (string :tag "Program")
                 (repeat :tag "Program and arguments" string))
  :group 'tandem)

(defcustom tandem-node-program "node"
  "The Node.js program that runs a `tandem.js' script (`tandem-sidecar-script')."
  :type 'string
  :group 'tandem)

(defcustom tandem-sidecar-script nil
  "A `tandem.js' script to run with `tandem-node-program'.
nil: the one built in this package's repository, if any, that is
`packages/cli/dist/tandem.js' beside the `emacs' folder."
  :type '(choice (const :tag "Built in this repository" nil) file)
  :group 'tandem)

(defconst tandem-sidecar--directory
  ;; Through symbolic links (straight.el builds a folder of links to the clone's files), and
  ;; from the source beside a compiled file, to the clone that also holds the sidecar.
  (let ((file (or load-file-name buffer-file-name)))
    (file-name-directory (file-truename (concat (file-name-sans-extension file) ".el"))))
  "The folder of this package's sources, in its clone of the repository.")

(defun tandem-sidecar--script ()
  "The `tandem.js' script to run, when there is one to look for."
  (if tandem-sidecar-script
      (expand-file-name tandem-sidecar-script) ; Node takes `~/' literally.
    (expand-file-name "../packages/cli/dist/tandem.js" tandem-sidecar--directory)))

(defun tandem-sidecar--file (program)
  "PROGRAM with `~' and a relative folder expanded; a bare name as it is.
A shell quotes the `~' of a line that names it: `tandem-env' gives such lines."
  (if (file-name-directory program) (expand-file-name program) program))

(defun tandem-sidecar--tandem ()
  "The `tandem' command as a list, or nil when there is none."
  (let ((tandem
         (cond
          ((stringp tandem-program) (list tandem-program))
          (tandem-program)
          ((or tandem-sidecar-script (file-readable-p (tandem-sidecar--script)))
           (list tandem-node-program (tandem-sidecar--script)))
          ((executable-find "tandem") (list (executable-find "tandem"))))))
    (and tandem (cons (tandem-sidecar--file (car tandem)) (cdr tandem)))))

(defun tandem-sidecar-program (&rest args)
  "The command line of the `tandem' program with ARGS."
  (append (tandem-sidecar--tandem) args))

(defun tandem-command ()
  "Return the command line of the sidecar, or nil when there is no `tandem'."
  (and (tandem-sidecar--tandem) (tandem-sidecar-program "bridge")))

(defun tandem-sidecar-problem ()
  "Why the sidecar's program cannot run, or nil."
  (let ((tandem (tandem-sidecar--tandem)))
    (cond
     ((null tandem)
      (format "no `tandem' command: run `npm run build:sidecar' in %s, or put a `tandem' on `exec-path'; `tandem-program' names another"
              (expand-file-name ".." tandem-sidecar--directory)))
     ((and tandem-sidecar-script (not tandem-program)
           (not (file-readable-p (tandem-sidecar--script))))
      (format "`tandem-sidecar-script' names %s, which cannot be read" (tandem-sidecar--script)))
     ((not (executable-find (car tandem)))
      (format "cannot start the sidecar: `%s' is not a program (see `%s')" (car tandem)
              (if tandem-program 'tandem-program 'tandem-node-program))))))

;;;###autoload
(defun tandem-version ()
  "Tandem's version: the `Version:' header of this package's `tandem.el'.
Interactively, show it in the echo area."
  (interactive)
  (require 'lisp-mnt)
  (let ((version (lm-version (expand-file-name "tandem.el" tandem-sidecar--directory))))
    (when (called-interactively-p 'interactive) (message "Tandem %s" version))
    version))

(provide 'tandem-sidecar)
;;; tandem-sidecar.el ends here
