# docbm: set up, build, demo, test.
#
#   make demo    install what is missing, build, run `docbm demo`
#   make test    install what is missing, build, run the test suite
#   make bench   run the benchmarks (release build)
#   make docs    build the DocC archives, warnings as errors

SWIFT ?= swift
PACKAGES := libattr1-dev libsodium-dev attr acl
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: setup build demo test bench docs format lint clean

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
	$(SWIFT) run -c release DocbmBenchmarks

docs: setup
	bash .ci/docs

format:
	$(SWIFT) format --in-place --recursive Package.swift Sources Tests Benchmarks Samples

lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Benchmarks Samples

clean:
	rm -rf .build
