;;; tandem-test.el --- Tests of tandem.el  -*- lexical-binding: t; -*-

;;; Commentary:

;; Where the package finds the sidecar, however it was installed.

;;; Code:

(require 'ert)
(require 'tandem)

(defconst tandem-test--sources
  (file-name-directory (locate-library "tandem-sidecar.el" t))
  "This package's folder.")

(ert-deftest tandem-test-sidecar-beside-the-package ()
  "The default sidecar is the one built in the package's repository."
  (let ((tandem-sidecar-script nil))
    (should (equal (cadr (tandem-command))
                   (expand-file-name "../packages/cli/dist/tandem.js" tandem-test--sources)))
    (should (equal (car (last (tandem-command))) "bridge"))))

(ert-deftest tandem-test-program-setting ()
  "`tandem-program' names the command, as a program or a list."
  (let ((tandem-program "/opt/tandem/bin/tandem"))
    (should (equal (tandem-command) '("/opt/tandem/bin/tandem" "bridge"))))
  (let ((tandem-program '("node" "/opt/tandem.js")))
    (should (equal (tandem-command) '("node" "/opt/tandem.js" "bridge")))))

(ert-deftest tandem-test-tandem-on-the-path ()
  "Without a sidecar built beside the package, the `tandem' on `exec-path' runs; with
neither, the problem names both ways to get one."
  (let* ((bin (make-temp-file "tandem-bin-" t))
         (program (expand-file-name "tandem" bin))
         (tandem-sidecar--directory (file-name-as-directory (make-temp-file "tandem-pkg-" t)))
         (tandem-program nil)
         (tandem-sidecar-script nil))
    (unwind-protect
        (progn
          (let ((exec-path (list bin)))
            (should (null (tandem-command)))
            (should (string-match-p "\\`no `tandem' command: run `npm run build:sidecar' in "
                                    (tandem-sidecar-problem))))
          (write-region "#!/bin/sh\n" nil program nil 'silent)
          (set-file-modes program #o755)
          (let ((exec-path (list bin)))
            (should (equal (tandem-command) (list program "bridge")))
            (should (null (tandem-sidecar-problem)))))
      (delete-directory bin t)
      (delete-directory tandem-sidecar--directory t))))

(ert-deftest tandem-test-version ()
  "`tandem-version' is the `Version:' header of tandem.el."
  (should (string-match-p "\\`[0-9]+\\.[0-9]+\\.[0-9]+\\'" (tandem-version))))

(ert-deftest tandem-test-through-links ()
  "Loaded through links (as straight.el builds them), and compiled there, it still finds the clone."
  (let ((build (make-temp-file "tandem-build-" t)))
    (unwind-protect
        (progn
          (make-symbolic-link (expand-file-name "tandem-sidecar.el" tandem-test--sources)
                              (expand-file-name "tandem-sidecar.el" build))
          (let ((byte-compile-dest-file-function
                 (lambda (_) (expand-file-name "tandem-sidecar.elc" build))))
            (byte-compile-file (expand-file-name "tandem-sidecar.el" build)))
          (dolist (file '("tandem-sidecar.el" "tandem-sidecar.elc"))
            (load (expand-file-name file build) nil t t)
            (should (equal tandem-sidecar--directory tandem-test--sources))))
      (load (expand-file-name "tandem-sidecar.el" tandem-test--sources) nil t t)
      (delete-directory build t))))

(ert-deftest tandem-test-env-line ()
  "The line for another terminal runs this package's `tandem env' for the folder, quoted."
  (let ((tandem-sidecar-script "/opt/my tandem/tandem.js")
        (default-directory "/tmp/")
        (tandem--session nil))
    (should (equal (tandem-env-line)
                   "eval \"$(node /opt/my\\ tandem/tandem.js env --cwd /tmp)\""))))

(ert-deftest tandem-test-program-under-home ()
  "A program named with `~' is expanded, so that the `tandem-env' line runs when pasted."
  (let* ((home (file-name-as-directory (make-temp-file "tandem-home-" t)))
         (process-environment (cons (concat "HOME=" home) process-environment))
         (default-directory "/tmp/")
         (tandem--session nil))
    (unwind-protect
        (progn
          (make-directory (expand-file-name "bin" home))
          (write-region "#!/bin/sh\necho 'echo pasted'\n" nil
                        (expand-file-name "bin/tandem" home) nil 'silent)
          (set-file-modes (expand-file-name "bin/tandem" home) #o755)
          (let ((tandem-program "~/bin/tandem"))
            (should (equal (tandem-command) (list (expand-file-name "bin/tandem" home) "bridge")))
            (should-not (string-match-p "~" (tandem-env-line)))
            (should (equal (with-output-to-string
                             (call-process "sh" nil standard-output nil "-c" (tandem-env-line)))
                           "pasted\n")))
          (let ((tandem-program '("~/bin/node" "/opt/tandem.js")))
            (should (equal (car (tandem-command)) (expand-file-name "bin/node" home))))
          (let ((tandem-program nil)
                (tandem-node-program "~/bin/node")
                (tandem-sidecar-script "/opt/tandem.js"))
            (should (equal (car (tandem-command)) (expand-file-name "bin/node" home))))
          (let ((tandem-program "tandem"))
            (should (equal (car (tandem-command)) "tandem"))))
      (delete-directory home t))))

(ert-deftest tandem-test-warnings ()
  "The engine's warnings are kept, shown once when they change, and mark the mode line."
  (let* ((session (tandem-session--make :state 'running))
         (tandem--session session)
         (shown '())
         (warning '((code . "no-diffs") (cli . "qwen") (message . "No diffs.") (fix . "Do this."))))
    (cl-letf (((symbol-function 'message)
               (lambda (format-string &rest args) (push (apply #'format format-string args) shown))))
      (tandem-session--warnings-changed session (list warning))
      (tandem-session--warnings-changed session (list warning))
      (should (equal (tandem-session-warnings session) (list warning)))
      (should (equal shown '("Tandem: No diffs. (M-x tandem-status says what to do)")))
      (should (equal (tandem-mode-line) " Tandem[0]!"))
      (should (equal (tandem-session-warning-text warning) "No diffs. Do this."))
      (tandem-session--warnings-changed session '())
      (should (equal (length shown) 1))
      (should (equal (tandem-mode-line) " Tandem[0]")))))

(ert-deftest tandem-test-mode-line ()
  "The mode line counts the CLIs and marks warnings and failures, as each change comes.
Between changes it is the same string: a redisplay makes none."
  (let* ((session (tandem-session--make))
         (tandem--session session)
         (warning '((code . "no-diffs") (cli . "qwen") (message . "No diffs.") (fix . "Do this."))))
    (cl-letf (((symbol-function 'message) #'ignore))
      (should (equal (tandem-mode-line) " Tandem[…]"))
      (setf (tandem-session-state session) 'running)
      (tandem-session--clients-changed session '(((name . "gemini"))))
      (should (equal (tandem-mode-line) " Tandem[1]"))
      (should (eq (tandem-mode-line) (tandem-mode-line)))
      (tandem-session--clients-changed session '(((name . "gemini")) ((name . "qwen"))))
      (should (equal (tandem-mode-line) " Tandem[2]"))
      (tandem-session--warnings-changed session (list warning))
      (should (equal (tandem-mode-line) " Tandem[2]!"))
      (tandem-session--clients-changed session '())
      (should (equal (tandem-mode-line) " Tandem[0]!"))
      (tandem-session--fail session "the sidecar is gone")
      (should (equal (tandem-mode-line) " Tandem[!]"))
      (setf (tandem-session-state session) 'stopped)
      (tandem-session--exited session 0)
      (should (equal (tandem-mode-line) ""))
      (let ((tandem--session nil))
        (should (equal (tandem-mode-line) ""))))))

(provide 'tandem-test)
;;; tandem-test.el ends here
