;;; tandem-test.el --- Tests of tandem.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; Where the package finds the sidecar, however it was installed.

;;; Code:

(require 'ert)
(require 'tandem)

(defconst tandem-test--sources
  (file-name-directory (locate-library "tandem.el" t))
  "This package's folder.")

(ert-deftest tandem-test-sidecar-beside-the-package ()
  "The default sidecar is the one built in the package's repository."
  (let ((tandem-sidecar-script nil))
    (should (equal (cadr (tandem-command))
                   (expand-file-name "../packages/cli/dist/tandem.js" tandem-test--sources)))
    (should (equal (car (last (tandem-command))) "bridge"))))

(ert-deftest tandem-test-through-links ()
  "Loaded through links (as straight.el builds them), and compiled there, it still finds the clone."
  (let ((build (make-temp-file "tandem-build-" t)))
    (unwind-protect
        (progn
          (make-symbolic-link (expand-file-name "tandem.el" tandem-test--sources)
                              (expand-file-name "tandem.el" build))
          (let ((byte-compile-dest-file-function
                 (lambda (_) (expand-file-name "tandem.elc" build))))
            (byte-compile-file (expand-file-name "tandem.el" build)))
          (dolist (file '("tandem.el" "tandem.elc"))
            (load (expand-file-name file build) nil t t)
            (should (equal tandem--directory tandem-test--sources))))
      (load (expand-file-name "tandem.el" tandem-test--sources) nil t t)
      (delete-directory build t))))

(provide 'tandem-test)
;;; tandem-test.el ends here
