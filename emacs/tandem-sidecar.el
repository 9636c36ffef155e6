;;; tandem-sidecar.el --- Where the sidecar is and how it runs  -*- lexical-binding: t; -*-

;; Copyright (C) 2026 The Tandem authors
;; SPDX-License-Identifier: Apache-2.0

;;; Commentary:

;; The built `tandem' command beside this package, the Node.js that runs
;; it, and why it cannot run.

;;; Code:

(defcustom tandem-node-program "node"
  "The Node.js program that runs the sidecar."
  :type 'string
  :group 'tandem)

(defcustom tandem-sidecar-script nil
  "The sidecar script, `tandem.js'; nil for the one built in this repository.
That one is `packages/cli/dist/tandem.js' beside the `emacs' folder."
  :type '(choice (const :tag "Built in this repository" nil) file)
  :group 'tandem)

(defconst tandem-sidecar--directory
  ;; Through symbolic links (straight.el builds a folder of links to the clone's files), and
  ;; from the source beside a compiled file, to the clone that also holds the sidecar.
  (let ((file (or load-file-name buffer-file-name)))
    (file-name-directory (file-truename (concat (file-name-sans-extension file) ".el"))))
  "The folder of this package's sources, in its clone of the repository.")

(defun tandem-sidecar--script ()
  "The sidecar script to run."
  (if tandem-sidecar-script
      (expand-file-name tandem-sidecar-script) ; Node takes `~/' literally.
    (expand-file-name "../packages/cli/dist/tandem.js" tandem-sidecar--directory)))

(defun tandem-sidecar-program (&rest args)
  "The command line of the `tandem' program with ARGS."
  (append (list tandem-node-program (tandem-sidecar--script)) args))

(defun tandem-command ()
  "Return the command line of the sidecar."
  (tandem-sidecar-program "bridge"))

(defun tandem-sidecar-problem ()
  "Why the sidecar's program cannot run, or nil."
  (cond
   ((not (file-readable-p (tandem-sidecar--script)))
    (format "the sidecar is not built: run `npm run build:sidecar' in %s, or set `tandem-sidecar-script'"
            (expand-file-name ".." tandem-sidecar--directory)))
   ((not (executable-find tandem-node-program))
    (format "cannot start the sidecar: `%s' is not a program (see `tandem-node-program')"
            tandem-node-program))))

(provide 'tandem-sidecar)
;;; tandem-sidecar.el ends here
