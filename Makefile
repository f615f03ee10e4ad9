# docbm: set up, build, demo, test.
#
#   make demo    install what is missing, build, run `docbm demo`
#   make test    install what is missing, build, run the test suite
#   make test-asan  the test suite again, built with AddressSanitizer (into .build/asan)
#   make bench   run the benchmarks (release build)
#   make docs    build the DocC documentation into .build/docs, warnings as errors
#   make docs-serve  serve .build/docs on http://localhost:$(DOCS_PORT) (python3 -m http.server)
#   make save-table  measure which programs' saves keep the key (docbm probe against getfattr/stat)
#   make filesystem-table  measure docbm on ext4, XFS, Btrfs, tmpfs, overlayfs and FUSE (as root)
#                and rewrite docs/filesystems.md's tables from the tests' output
#   make install install docbm, its manual page, completions and systemd user unit
#                (docbm-watch@.service) under PREFIX (installs no packages: run
#                `make setup` first when the build packages are missing)
#   make uninstall  remove exactly the files `make install` put under PREFIX

SWIFT ?= swift
PACKAGES := libattr1-dev libsodium-dev libssl-dev libsqlite3-dev attr acl rsync xdg-desktop-portal fuse3 dbus python3-gi \
  bubblewrap xfsprogs btrfs-progs bindfs python3-fusepy vim emacs-nox libarchive-tools zsh tmux
# Only for `make save-table`: the programs it measures (not needed by the test suite).
SAVE_TABLE_PACKAGES := vim emacs-nox nano gawk moreutils rsync zip unzip git patch python3-gi
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

PREFIX ?= /usr/local
DOCS_PORT ?= 8000
# What `make install` puts under $(DESTDIR)$(PREFIX), and `make uninstall` removes.
INSTALLED := bin/docbm share/man/man1/docbm.1 share/bash-completion/completions/docbm \
  share/zsh/site-functions/_docbm share/systemd/user/docbm-watch@.service
# Release builds (make install, make bench) make docbm a static executable: the Swift
# runtime, Foundation and the C libraries linked in, nothing to relocate at start-up; and
# the metadata of concrete generic types is made by direct calls instead of by demangling
# their names and searching the whole binary's protocol conformances at run time. Together
# they take `docbm inspect` from about 5.8 ms to 1.3 ms (docs/performance.md, "Start-up"):
# it matters for a command run once per file. The cost: docbm's own code and data sit at a
# fixed address (stack, heap and mappings stay randomised), and glibc's user and host name
# functions (which docbm does not call) would need this glibc at run time, as the link's
# notices say; those notices are left out of the output. `make install PIE=1` builds a
# position-independent docbm instead (start-up about 4.7 ms).
ifeq ($(PIE),1)
RELEASE := -c release --static-swift-stdlib
else
RELEASE := -c release --static-swift-stdlib -Xswiftc -static-executable
endif
RELEASE += -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors
SHELL := /bin/bash
# A release build of product $(1), without glibc's notices about static linking.
release_build = set -o pipefail; $(SWIFT) build $(RELEASE) --product $(1) 2>&1 \
  | { grep -v 'in statically linked applications requires at runtime' || true; }

.PHONY: setup check-setup build demo test test-asan bench bench-check docs docs-serve install uninstall format lint clean save-table filesystem-table

setup:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; \
	fi

# Like setup, but installs nothing: fails naming what is missing.
check-setup:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Missing build packages:$$missing. Run 'make setup' to install them (with apt-get)," >&2; \
	  echo "then 'make install' again." >&2; \
	  exit 1; \
	fi

build: setup
	$(SWIFT) build

demo: build
	$(SWIFT) run docbm demo

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# Every out-of-bounds read or write, use after free or double free the tests reach stops
# the run with its place (a read past the end of a buffer otherwise shows only when that
# memory happens to be unmapped). Freed memory is handed out again at once (no quarantine):
# the memory tests measure docbm's own peak, not the sanitizer's pool of freed blocks.
# Leaks are not checked (the Swift runtime's caches would be reported).
ASAN_OPTIONS := detect_leaks=0:quarantine_size_mb=0:thread_local_quarantine_size_kb=0:abort_on_error=0:halt_on_error=1
test-asan: setup
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build/asan
	ASAN_OPTIONS=$(ASAN_OPTIONS) $(SWIFT) test --skip-build --sanitize=address --scratch-path .build/asan

bench: setup
	$(call release_build,docbm)
	$(call release_build,DocbmBenchmarks)
	.build/release/DocbmBenchmarks
	.build/release/DocbmBenchmarks board
	.build/release/DocbmBenchmarks store
	.build/release/DocbmBenchmarks escrow

bench-check: setup
	$(call release_build,docbm)
	$(call release_build,DocbmBenchmarks)
	.build/release/DocbmBenchmarks checking

install: check-setup
	$(call release_build,docbm)
	install -D -m 0755 .build/release/docbm $(DESTDIR)$(PREFIX)/bin/docbm
	install -D -m 0644 docs/docbm.1 $(DESTDIR)$(PREFIX)/share/man/man1/docbm.1
	mkdir -p $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	.build/release/docbm completions bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/docbm
	.build/release/docbm completions zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_docbm
	chmod 0644 $(DESTDIR)$(PREFIX)/share/bash-completion/completions/docbm $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_docbm
	mkdir -p $(DESTDIR)$(PREFIX)/share/systemd/user
	sed '/^ExecStart=/s|@bindir@|$(PREFIX)/bin|' docs/docbm-watch@.service > $(DESTDIR)$(PREFIX)/share/systemd/user/docbm-watch@.service
	chmod 0644 $(DESTDIR)$(PREFIX)/share/systemd/user/docbm-watch@.service
	@echo "Installed under $(DESTDIR)$(PREFIX): $(INSTALLED)"

# Removes the installed files only (never a folder, which other programs may share).
uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/,$(INSTALLED))

save-table: setup
	@$(MAKE) --no-print-directory setup PACKAGES="$(SAVE_TABLE_PACKAGES)"
	$(SWIFT) build --product docbm
	bash Benchmarks/save-table.sh

filesystem-table: setup
	bash Benchmarks/filesystem-table.sh

docs: setup
	DOCS_PORT=$(DOCS_PORT) bash .ci/docs

# The pages load their scripts from /<Target>/…: browse them through a server, not from disk.
docs-serve:
	@[ -d .build/docs/DocumentBookmarks ] || $(MAKE) --no-print-directory docs
	@echo "Serving .build/docs: http://localhost:$(DOCS_PORT)/DocumentBookmarks/documentation/documentbookmarks/"
	@echo "  http://localhost:$(DOCS_PORT)/DocumentBookmarksTesting/documentation/documentbookmarkstesting/"
	@echo "  and http://localhost:$(DOCS_PORT)/DocumentWatching/documentation/documentwatching/ (Ctrl-C stops)"
	python3 -m http.server $(DOCS_PORT) --bind 127.0.0.1 --directory .build/docs

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks Samples Plugins

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Benchmarks Samples Plugins

clean:
	rm -rf .build
