# docbm: set up, build, demo, test.
#
#   make demo    install what is missing, build, run `docbm demo`
#   make test    install what is missing, build, run the test suite
#   make test-asan  the test suite again, built with AddressSanitizer (into .build/asan)
#   make bench   run the benchmarks (release build)
#   make bench-libdocbm  one resolve through libdocbm from C and Python, against Swift
#   make docs    build the DocC documentation into .build/docs, warnings as errors, and check
#                its links; a landing page at the root links the modules and the guides
#   make diagrams  draw docs/images/*.svg from their Graphviz sources (docs/images/*.dot)
#   make docs-serve  serve .build/docs on http://localhost:$(DOCS_PORT) (python3 -m http.server)
#   make save-table  measure which programs' saves keep the key (docbm probe against getfattr/stat)
#   make travel-table  measure which copy, archive, backup and sync tools keep the key, and
#                rewrite docs/travel.md's table from the run
#   make filesystem-table  measure docbm on ext4, XFS, Btrfs, tmpfs, overlayfs and FUSE (as root)
#                and rewrite docs/filesystems.md's tables from the tests' output
#   make test-c  libdocbm from C: the C tests under AddressSanitizer, the C sample, C++ header check
#   make test-python  the Python package installed with pip into a fresh venv, its pytest suite
#                and mypy --strict over the package, its tests and the sample
#   make libdocbm  build libdocbm (release, self-contained) into .build/libdocbm/release
#   make wheel   a wheel of the Python package carrying libdocbm (.build/wheel/dist), for
#                machines without Swift; make test-wheel installs it into a fresh venv and
#                runs the Python sample with the Swift toolchain hidden
#   make install install docbm, its manual page, completions and systemd user unit
#                (docbm-watch@.service), and libdocbm (libdocbm.so.0, docbm.h, docbm.pc)
#                under PREFIX, or the folders BINDIR, LIBDIR, INCLUDEDIR, DATADIR and MANDIR
#                name (GNU's conventions; DESTDIR stages them); needs the Swift toolchain and
#                the four libraries of BUILD_PACKAGES (installs no packages: `make
#                setup-build` does)
#   make uninstall  remove exactly the files `make install` put there
#   make test-packages  build the Debian packages (debian/: docbm, libdocbm0, libdocbm-dev,
#                python3-docbm) into .build/packages, check them with lintian, install them
#                into a fresh root (as root) and run the C and Python samples against them

SWIFT ?= swift
# What building and installing docbm and libdocbm needs besides the Swift toolchain.
BUILD_PACKAGES := libattr1-dev libsodium-dev libssl-dev libsqlite3-dev
# What the tests, the demo and the docs need besides: the tools, filesystems, editors and
# portal they run docbm against.
PACKAGES := $(BUILD_PACKAGES) attr acl rsync xdg-desktop-portal fuse3 dbus python3-gi \
  bubblewrap xfsprogs btrfs-progs bindfs python3-fusepy vim emacs-nox libarchive-tools zsh tmux \
  gcc g++ pkg-config python3-venv python3-pip python3-setuptools python3-wheel python3-pytest python3-mypy \
  graphviz librsvg2-bin cmark-gfm mandoc
# Only for `make travel-table`: the copy, archive, backup and sync tools it measures.
TRAVEL_TABLE_PACKAGES := rsync tar libarchive-tools cpio zip unzip p7zip-full borgbackup restic duplicity \
  rdiff-backup rclone unison git libglib2.0-bin pax ntfs-3g exfatprogs exfat-fuse
# Only for `make save-table`: the programs it measures (not needed by the test suite).
SAVE_TABLE_PACKAGES := vim emacs-nox nano gawk moreutils rsync zip unzip git patch python3-gi
# Only for `make test-packages`: what building and checking the Debian packages needs.
PACKAGING_PACKAGES := dpkg-dev debhelper dh-python pybuild-plugin-pyproject python3-all python3-setuptools \
  python3-wheel lintian
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
DOCS_PORT ?= 8000
# What `make install` puts under $(DESTDIR), and `make uninstall` removes.
INSTALLED := $(BINDIR)/docbm $(MANDIR)/man1/docbm.1 $(DATADIR)/bash-completion/completions/docbm \
  $(DATADIR)/zsh/site-functions/_docbm $(DATADIR)/systemd/user/docbm-watch@.service
# libdocbm: its version is the release's; its soname, libdocbm.so.0, changes only when
# the ABI breaks.
LIB_VERSION := $(shell sed -n 's/.*static let version = "\(.*\)"/\1/p' Sources/DocumentBookmarks/DocbmRelease.swift)
LIB_INSTALLED := $(LIBDIR)/libdocbm.so.$(LIB_VERSION) $(LIBDIR)/libdocbm.so.0 $(LIBDIR)/libdocbm.so \
  $(INCLUDEDIR)/docbm.h $(LIBDIR)/pkgconfig/docbm.pc
INSTALLED += $(LIB_INSTALLED)
# libdocbm's release build links the Swift runtime and Foundation in (-static-stdlib), so
# that it needs only the system's C libraries (libc, libstdc++, libm) at run time; in a
# build folder of its own, since its flags are not docbm's.
LIB_RELEASE := -c release -Xswiftc -static-stdlib --scratch-path .build/libdocbm
# Without Foundation's notice about its use of mktemp, which docbm does not call.
build_library = set -o pipefail; $(SWIFT) build $(LIB_RELEASE) --product DocbmC 2>&1 \
  | { grep -v "the use of .mktemp' is dangerous" || true; }
# Release builds (make install, make bench) make docbm a static position-independent
# executable (static-pie): the Swift runtime, Foundation and the C libraries linked in, its
# code and data placed at a random address like the rest of the process, and nothing for a
# dynamic loader to do at start-up but apply its own relative relocations. Only LLVM's
# linker (lld, in the Swift toolchain) makes one of the Swift runtime; glibc refuses to
# start a static-pie with a run path, so none is added. And the metadata of concrete
# generic types is made by direct calls instead of by demangling their names and searching
# the whole binary's protocol conformances at run time. Both are there because docbm is a
# command run once per file (`docbm inspect`), whose start-up is most of its cost (docs/
# performance.md, "Start-up, position-independent"). glibc's user and host name functions
# (which docbm does not call) would need this glibc at run time, as the link's notices say;
# those notices are left out of the output.
RELEASE := -c release --static-swift-stdlib --disable-local-rpath -Xswiftc -static-executable \
  -Xswiftc -no-toolchain-stdlib-rpath -Xswiftc -use-ld=lld -Xswiftc -Xclang-linker -Xswiftc -static-pie
RELEASE += -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
SHELL := /bin/bash
# Every module imports only the modules its target declares (docs/design.md, "Modules").
IMPORT_CHECK := --explicit-target-dependency-import-check error
# A release build of product $(1), without glibc's notices about static linking.
release_build = set -o pipefail; $(SWIFT) build $(RELEASE) --product $(1) 2>&1 \
  | { grep -v 'in statically linked applications requires at runtime' || true; }

# $(call install_library,BUILT,STAGE,LIBDIR,INCLUDEDIR): the library file BUILT installed
# into STAGE (DESTDIR, or nothing) LIBDIR as libdocbm (with its soname and development
# links), docbm.h into INCLUDEDIR, and docbm.pc naming LIBDIR and INCLUDEDIR as they are
# used from, not as staged.
define install_library
	install -D -m 0755 $(1) $(2)$(3)/libdocbm.so.$(LIB_VERSION)
	ln -sfn libdocbm.so.$(LIB_VERSION) $(2)$(3)/libdocbm.so.0
	ln -sfn libdocbm.so.0 $(2)$(3)/libdocbm.so
	install -D -m 0644 Sources/DocbmC/include/docbm.h $(2)$(4)/docbm.h
	mkdir -p $(2)$(3)/pkgconfig
	sed -e 's|@LIBDIR@|$(3)|' -e 's|@INCLUDEDIR@|$(4)|' -e 's|@VERSION@|$(LIB_VERSION)|' \
	  Sources/DocbmC/docbm.pc.in > $(2)$(3)/pkgconfig/docbm.pc
	chmod 0644 $(2)$(3)/pkgconfig/docbm.pc
endef

.PHONY: api-check setup setup-build check-setup build demo test c-prefix test-c test-python wheel test-wheel libdocbm test-asan bench bench-libdocbm bench-check diagrams travel-table docs docs-serve install uninstall test-packages format lint clean save-table filesystem-table

setup:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; \
	fi

# Installs the build packages only: what `make install` needs.
setup-build:
	@$(MAKE) --no-print-directory setup PACKAGES="$(BUILD_PACKAGES)"

# Like setup-build, but installs nothing: fails naming what is missing.
check-setup:
	@missing=""; for p in $(BUILD_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Missing build packages:$$missing. Run 'make setup-build' to install them (with apt-get)," >&2; \
	  echo "then 'make install' again." >&2; \
	  exit 1; \
	fi

build: setup
	$(SWIFT) build $(IMPORT_CHECK)

demo: build
	$(SWIFT) run docbm demo

# The suite runs with a state folder of its own, which it must leave without an escrow: a
# test that wrote a key to the user's escrow would fail it.
test: setup
	$(SWIFT) build --build-tests $(IMPORT_CHECK)
	state=$$(mktemp -d); XDG_STATE_HOME=$$state $(SWIFT) test --skip-build; status=$$?; \
	  if [ -e $$state/docbm ]; then echo "the tests wrote to the user's escrow: $$state/docbm" >&2; status=1; fi; \
	  rm -rf $$state; exit $$status
	$(MAKE) --no-print-directory test-c test-python

# libdocbm (the debug build) installed into .build/c-prefix as `make install` would, and
# used from there through pkg-config, as a C program would use it.
C_PREFIX := $(CURDIR)/.build/c-prefix
C_FLAGS := -std=c99 -Wall -Wextra -Werror -g -fsanitize=address,undefined -fno-omit-frame-pointer
with_c_prefix = PKG_CONFIG_PATH=$(C_PREFIX)/lib/pkgconfig LD_LIBRARY_PATH=$(C_PREFIX)/lib
c-prefix: setup
	$(SWIFT) build --product DocbmC
	rm -rf $(C_PREFIX)
	$(call install_library,.build/debug/libDocbmC.so,,$(C_PREFIX)/lib,$(C_PREFIX)/include)

test-c: c-prefix
	$(with_c_prefix) cc $(C_FLAGS) $$($(with_c_prefix) pkg-config --cflags docbm) Tests/CLibrary/test_docbm.c \
	  $$($(with_c_prefix) pkg-config --libs docbm) -o $(C_PREFIX)/test_docbm
	c++ -std=c++11 -Wall -Wextra -Werror -fsyntax-only -x c++ $(C_PREFIX)/include/docbm.h
	bash Tests/CLibrary/check-exports.sh $(C_PREFIX)/lib/libdocbm.so.0 Sources/DocbmC/include/docbm.h
	scratch=$$(mktemp -d -p $(CURDIR)/.build) && trap 'rm -rf "$$scratch"' EXIT && \
	  ASAN_OPTIONS=detect_leaks=1 $(with_c_prefix) $(C_PREFIX)/test_docbm "$$scratch"
	$(MAKE) --no-print-directory -C Samples/c-editor run PKG_CONFIG_PATH=$(C_PREFIX)/lib/pkgconfig \
	  LD_LIBRARY_PATH=$(C_PREFIX)/lib CFLAGS="$(C_FLAGS)"

# The Python package, installed with pip into a fresh virtual environment (Debian's pytest,
# setuptools and wheel seen through --system-site-packages, so nothing is downloaded), its
# tests run against the libdocbm in .build/c-prefix. Debian's own Python, which sees
# Debian's packages, whatever `python3` comes first on PATH.
DEBIAN_PYTHON ?= /usr/bin/python3
test-python: c-prefix
	$(SWIFT) build --product docbm
	rm -rf .build/python-venv
	$(DEBIAN_PYTHON) -m venv --system-site-packages .build/python-venv
	.build/python-venv/bin/pip install --quiet --no-build-isolation --no-index ./python
	DOCBM_LIBRARY=$(C_PREFIX)/lib/libdocbm.so.0 DOCBM_COMMAND=$(CURDIR)/.build/debug/docbm \
	  .build/python-venv/bin/python -m pytest -q -p no:cacheprovider python/tests
	cd python && ../.build/python-venv/bin/python -m mypy --strict --cache-dir=/dev/null docbm tests ../Samples/python-editor
	cd .build && DOCBM_LIBRARY=$(C_PREFIX)/lib/libdocbm.so.0 python-venv/bin/python ../Samples/python-editor/editor.py

# A wheel of the Python package that carries libdocbm (the release build, the Swift
# runtime linked in), for machines without Swift: .build/wheel/dist/docbm-*.whl, made from a
# copy of python/ so that the source tree never holds a library.
wheel: setup
	$(build_library)
	rm -rf .build/wheel && mkdir -p .build/wheel/src
	cp -r python/pyproject.toml python/setup.py python/README.md python/docbm .build/wheel/src/
	find .build/wheel/src -name __pycache__ -prune -exec rm -rf {} +
	install -m 0755 .build/libdocbm/release/libDocbmC.so .build/wheel/src/docbm/libdocbm.so.0
	strip --strip-unneeded .build/wheel/src/docbm/libdocbm.so.0
	$(DEBIAN_PYTHON) -m pip wheel --quiet --no-build-isolation --no-deps --no-index \
	  -w .build/wheel/dist .build/wheel/src

# The wheel installed into a fresh venv with the Swift toolchain hidden, running the sample.
test-wheel: wheel
	bash Tests/Wheel/run-without-swift.sh .build/wheel/dist/docbm-*.whl Samples/python-editor/editor.py

# libdocbm's release build: .build/libdocbm/release/libDocbmC.so (installed as libdocbm.so.0).
libdocbm: setup
	$(build_library)

# Every out-of-bounds read or write, use after free or double free the tests reach stops
# the run with its place (a read past the end of a buffer otherwise shows only when that
# memory happens to be unmapped). Freed memory is handed out again at once (no quarantine):
# the memory tests measure docbm's own peak, not the sanitizer's pool of freed blocks.
# Leaks are not checked (the Swift runtime's caches would be reported).
ASAN_OPTIONS := detect_leaks=0:quarantine_size_mb=0:thread_local_quarantine_size_kb=0:abort_on_error=0:halt_on_error=1
test-asan: setup
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	ASAN_OPTIONS=$(ASAN_OPTIONS) $(SWIFT) test --skip-build --sanitize=address --scratch-path .build/asan

# The C floors the benchmarks compare docbm with (Benchmarks/floors), beside docbm.
define build_floors
	for floor in inspect check; do \
	  cc -O2 -o .build/release/$$floor-floor Benchmarks/floors/$$floor.c $$(pkg-config --cflags --libs sqlite3 libsodium); \
	done
endef

# Every section runs even when one misses a goal; the last line names those that did, and
# the exit status is 1 when any did.
BENCH_SECTIONS := main board store-100000 escrow escrow-tree checking-10000 hostile find
bench: setup
	$(call release_build,docbm)
	$(call release_build,DocbmBenchmarks)
	$(call build_floors)
	@missed=""; for section in $(BENCH_SECTIONS); do \
	  case $$section in main) arguments="";; checking-10000) arguments="checking 10000";; \
	    store-100000) arguments="store 100000";; *) arguments=$$section;; esac; \
	  echo "== DocbmBenchmarks $$arguments"; \
	  .build/release/DocbmBenchmarks $$arguments || missed="$$missed $$section"; echo; \
	done; \
	if [ -n "$$missed" ]; then echo "make bench: goals not met in:$$missed"; exit 1; fi; \
	echo "make bench: every goal met"

# libdocbm's cost per resolve from C and Python against Swift: the release library installed
# into .build/bench-prefix, the Python package into a venv there.
bench-libdocbm: setup
	$(call release_build,DocbmBenchmarks)
	$(build_library)
	rm -rf .build/bench-prefix
	$(call install_library,.build/libdocbm/release/libDocbmC.so,,$(CURDIR)/.build/bench-prefix/lib,$(CURDIR)/.build/bench-prefix/include)
	strip --strip-unneeded .build/bench-prefix/lib/libdocbm.so.$(LIB_VERSION)
	$(DEBIAN_PYTHON) -m venv --system-site-packages .build/bench-prefix/venv
	.build/bench-prefix/venv/bin/pip install --quiet --no-build-isolation --no-index ./python
	bash Benchmarks/libdocbm/run.sh .build/release/DocbmBenchmarks $(CURDIR)/.build/bench-prefix \
	  .build/bench-prefix/venv/bin/python

bench-check: setup
	$(call release_build,docbm)
	$(call release_build,DocbmBenchmarks)
	$(call build_floors)
	.build/release/DocbmBenchmarks checking

install: check-setup
	$(call release_build,docbm)
	install -D -m 0755 .build/release/docbm $(DESTDIR)$(BINDIR)/docbm
	install -D -m 0644 docs/docbm.1 $(DESTDIR)$(MANDIR)/man1/docbm.1
	mkdir -p $(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(DATADIR)/zsh/site-functions
	.build/release/docbm completions bash > $(DESTDIR)$(DATADIR)/bash-completion/completions/docbm
	.build/release/docbm completions zsh > $(DESTDIR)$(DATADIR)/zsh/site-functions/_docbm
	chmod 0644 $(DESTDIR)$(DATADIR)/bash-completion/completions/docbm $(DESTDIR)$(DATADIR)/zsh/site-functions/_docbm
	mkdir -p $(DESTDIR)$(DATADIR)/systemd/user
	sed '/^ExecStart=/s|@bindir@|$(BINDIR)|' docs/docbm-watch@.service > $(DESTDIR)$(DATADIR)/systemd/user/docbm-watch@.service
	chmod 0644 $(DESTDIR)$(DATADIR)/systemd/user/docbm-watch@.service
	$(build_library)
	$(call install_library,.build/libdocbm/release/libDocbmC.so,$(DESTDIR),$(LIBDIR),$(INCLUDEDIR))
	strip --strip-unneeded $(DESTDIR)$(LIBDIR)/libdocbm.so.$(LIB_VERSION)
	@# The dynamic linker's cache, so that programs find libdocbm.so.0 in a standard folder.
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi
	@echo "Installed: $(addprefix $(DESTDIR),$(INSTALLED))"

# Removes the installed files only (never a folder, which other programs may share).
uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

# The Debian packages, built by dpkg-buildpackage from a copy of the source tree under
# .build/packages (it writes them beside the tree, and cleans the tree with `make clean`),
# with Debian's tools and python3 first on PATH and the Swift toolchain after them (-d: the
# toolchain is not a Debian package); lintian fails it on an error; then the packages
# installed into a fresh root, where the samples run without the Swift toolchain.
PACKAGES_DIR := $(CURDIR)/.build/packages
test-packages: setup
	@$(MAKE) --no-print-directory setup PACKAGES="$(PACKAGING_PACKAGES)"
	rm -rf $(PACKAGES_DIR) && mkdir -p $(PACKAGES_DIR)/source
	set -o pipefail; git ls-files -z --cached --others --exclude-standard \
	  | tar --null --files-from=- --ignore-failed-read --warning=no-failed-read -cf - \
	  | tar -xf - -C $(PACKAGES_DIR)/source
	swift=$$(command -v $(SWIFT)) && cd $(PACKAGES_DIR)/source && \
	  PATH=/usr/sbin:/usr/bin:/sbin:/bin:$$(dirname "$$swift") dpkg-buildpackage -b -uc -us -d
	rm -rf $(PACKAGES_DIR)/source
	lintian --fail-on error $(PACKAGES_DIR)/docbm_*.changes
	bash Tests/Packages/install-and-run.sh $(PACKAGES_DIR)

save-table: setup
	@$(MAKE) --no-print-directory setup PACKAGES="$(SAVE_TABLE_PACKAGES)"
	$(SWIFT) build --product docbm
	bash Benchmarks/save-table.sh

travel-table: setup
	@$(MAKE) --no-print-directory setup PACKAGES="$(TRAVEL_TABLE_PACKAGES)"
	$(SWIFT) build --product docbm
	bash Benchmarks/travel-table.sh --update-doc

filesystem-table: setup
	bash Benchmarks/filesystem-table.sh

diagrams: setup
	for source in docs/images/*.dot; do dot -Tsvg "$$source" -o "$${source%.dot}.svg"; done

docs: setup
	DOCS_PORT=$(DOCS_PORT) bash .ci/docs

# The pages load their scripts from /<Target>/…: browse them through a server, not from disk.
docs-serve:
	@[ -d .build/docs/DocumentBookmarks ] || $(MAKE) --no-print-directory docs
	@echo "Serving .build/docs at http://localhost:$(DOCS_PORT)/ : the modules, their articles and the guides (Ctrl-C stops)"
	python3 -m http.server $(DOCS_PORT) --bind 127.0.0.1 --directory .build/docs

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks Samples Plugins

# Besides the format: every `try?` in the sources says why its failure does not matter
# (.ci/try-comments.py).
lint: api-check
	$(SWIFT) format lint --strict --recursive Sources Tests Benchmarks Samples Plugins
	$(DEBIAN_PYTHON) .ci/try-comments.py Sources

# The public API held to the last release's: every break since then must be one reviewed
# and listed in .ci/api-breaks.txt. The release is named by its commit, which a clone has
# even when tags did not travel with it (each is tagged as well).
RELEASE_0_1_0 := e9764d0d6ab1bf0a90791f985e43f8b2588751dc
RELEASE_0_2_0 := bcc669d31e39b130750c39ecf5cd9ee0b8cb6c0a
API_BASELINE := $(RELEASE_0_2_0)
API_PRODUCTS := DocumentBookmarks DocumentBookmarkStore DocumentWatching DocumentBookmarksTesting
api-check: setup
	@git cat-file -e $(API_BASELINE)^{commit} 2>/dev/null || { \
	  echo "api-check: the last release's commit $(API_BASELINE) is not in this checkout;" >&2; \
	  echo "  the public API is held to it: fetch the history (git fetch --unshallow) and run again" >&2; exit 1; }
	@mkdir -p .build && { grep -v '^#' .ci/api-breaks.txt || true; } > .build/api-breaks.txt
	$(SWIFT) package diagnose-api-breaking-changes $(API_BASELINE) \
	  --breakage-allowlist-path $(CURDIR)/.build/api-breaks.txt --products $(API_PRODUCTS)

clean:
	rm -rf .build
