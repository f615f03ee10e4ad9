# docbm: set up, build, demo, test.
#
#   make demo    install what is missing, build, run `docbm demo`
#   make test    install what is missing, build, run the test suite
#   make bench   run the benchmarks (release build)
#   make docs    build the DocC archives, warnings as errors
#   make save-table  measure which programs' saves keep the key (docbm probe against getfattr/stat)
#   make install install docbm, its manual page and completions under PREFIX

SWIFT ?= swift
PACKAGES := libattr1-dev libsodium-dev libssl-dev attr acl
# Only for `make save-table`: the programs it measures (not needed by the test suite).
SAVE_TABLE_PACKAGES := vim emacs-nox nano gawk moreutils rsync zip unzip git patch python3-gi
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

PREFIX ?= /usr/local
# Release builds link the Swift runtime and Foundation statically: docbm starts in a
# fraction of the time (it matters for a command run once per file, and for `check`).
RELEASE := -c release --static-swift-stdlib

.PHONY: setup build demo test bench bench-check docs install format lint clean save-table

setup:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq $$missing; \
	fi

build: setup
	$(SWIFT) build

demo: build
	$(SWIFT) run docbm demo

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

bench: setup
	$(SWIFT) build $(RELEASE) --product docbm
	$(SWIFT) build $(RELEASE) --product DocbmBenchmarks
	.build/release/DocbmBenchmarks

bench-check: setup
	$(SWIFT) build $(RELEASE) --product docbm
	$(SWIFT) build $(RELEASE) --product DocbmBenchmarks
	.build/release/DocbmBenchmarks checking

install: setup
	$(SWIFT) build $(RELEASE) --product docbm
	install -D -m 0755 .build/release/docbm $(DESTDIR)$(PREFIX)/bin/docbm
	install -D -m 0644 docs/docbm.1 $(DESTDIR)$(PREFIX)/share/man/man1/docbm.1
	mkdir -p $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions
	.build/release/docbm completions bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/docbm
	.build/release/docbm completions zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_docbm

save-table: setup
	@$(MAKE) --no-print-directory setup PACKAGES="$(SAVE_TABLE_PACKAGES)"
	$(SWIFT) build --product docbm
	bash Benchmarks/save-table.sh

docs: setup
	bash .ci/docs

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks Samples

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Benchmarks Samples

clean:
	rm -rf .build
