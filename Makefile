# RecorderKit. `make demo` and `make test` are the two commands for a fresh machine: both
# install what is missing first (`make deps`), then build.

SWIFT        ?= swift
FUZZ_SECONDS ?= 300
# Executions per fuzz target (libFuzzer -runs); empty: run each for FUZZ_SECONDS instead.
FUZZ_RUNS    ?= 10000000
FUZZ_DIR     := .build/fuzz
# The package traits the tests build with (Package.swift: PowerLossHook).
TEST_TRAITS  := --traits PowerLossHook
# Debian packages the build, the tests and the interop checks need.
DEB_PACKAGES := pkg-config libopus-dev libmp3lame-dev libogg-dev libsqlite3-dev libssl-dev libcurl4-openssl-dev \
                ffmpeg opus-tools python3-websockets \
                libdbus-1-dev dbus-daemon dbus-bin python3-dbusmock python3-gi dosfstools mtools \
                nodejs gdb
# The same for Homebrew, for a machine without apt.
BREW_PACKAGES := pkg-config opus lame libogg sqlite openssl@3 ffmpeg opus-tools

.PHONY: deps build test demo install fuzz bench passive-rss tsan docs format lint clean

## deps: install exactly the missing Debian packages (quiet when all are there)
deps:
	@./scripts/install-deps.sh $(DEB_PACKAGES) -- $(BREW_PACKAGES)

build: deps
	$(SWIFT) build

## test: build and run every test (under 15 minutes on 2 cores)
test: deps
	@# The PowerLossHook trait compiles `recorder`'s process-level power-loss hook in (the
	@# power-loss process tests need it; a `recorder` built without it links no test double).
	$(SWIFT) build --build-tests $(TEST_TRAITS)
	@# At most 6 tests at once: with every test started together on 2 cores, tests that wait
	@# on real sockets and real time (TCP, WebSocket, D-Bus, URLSession) missed their bounds.
	@# scripts/test-guard.sh: a run silent for 10 minutes prints its threads' stacks and fails.
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=6 ./scripts/test-guard.sh $(SWIFT) test --skip-build $(TEST_TRAITS)
	@# The fuzz smoke: every libFuzzer entry still type-checks (make fuzz runs them).
	FUZZ_TYPECHECK=1 ./scripts/fuzz.sh

## demo: build and run the main job against the emulated device
demo: deps
	$(SWIFT) build --product recorder
	$$($(SWIFT) build --show-bin-path)/recorder demo

## install: build `recorder` (release) and install it with its systemd unit, D-Bus policy,
##       polkit rule, system user (sysusers.d) and the token's place (tmpfiles.d) under
##       $(DESTDIR)$(PREFIX) and $(DESTDIR)$(SYSCONFDIR) (scripts/install.sh); idempotent.
##       RECORDER_BIN=PATH installs that binary instead of building one (the tests do)
PREFIX       ?= /usr/local
SYSCONFDIR   ?= /etc
RECORDER_BIN ?=
install: $(if $(RECORDER_BIN),,deps)
ifeq ($(RECORDER_BIN),)
	$(SWIFT) build -c release --product recorder
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" SYSCONFDIR="$(SYSCONFDIR)" \
	  ./scripts/install.sh "$$($(SWIFT) build -c release --show-bin-path)/recorder"
else
	DESTDIR="$(DESTDIR)" PREFIX="$(PREFIX)" SYSCONFDIR="$(SYSCONFDIR)" \
	  ./scripts/install.sh "$(RECORDER_BIN)"
endif

## fuzz: libFuzzer over every parser of outside bytes, FUZZ_RUNS executions each (10 M:
##       6 min to over 1 h a target on 2 cores), corpus kept minimized in Fuzz/corpus/<target>;
##       `make fuzz FUZZ_RUNS= FUZZ_SECONDS=60` for a quick run by time
fuzz: deps
	@FUZZ_RUNS=$(FUZZ_RUNS) ./scripts/fuzz.sh $(FUZZ_SECONDS)

## bench: benchmarks print figures; they never fail on a number
bench: deps
	$(SWIFT) build -c release --product RecorderBench
	$$($(SWIFT) build -c release --show-bin-path)/RecorderBench $(BENCH)

## passive-rss: the resident set of `recorder passive run` at start and every 1,000 readings up
##       to READINGS (10,000: about 5 minutes) against `recorder emulate --health`; figures only
passive-rss: deps
	$(SWIFT) build --product recorder $(TEST_TRAITS)
	RECORDER=$$($(SWIFT) build --show-bin-path $(TEST_TRAITS))/recorder ./scripts/passive-rss.sh

## tsan: the whole test suite under ThreadSanitizer (long workloads scaled down: races, not figures)
tsan: deps
	RECORDER_TEST_SCALE=small SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=6 \
	  ./scripts/test-guard.sh $(SWIFT) test --sanitize=thread --scratch-path .build-tsan $(TEST_TRAITS)

## docs: a DocC archive per public module into .build/docs; fails on any DocC warning
docs: deps
	./scripts/docs.sh

format:
	swift-format format --in-place --recursive --configuration .swift-format Package.swift Sources Tests Benchmarks Fuzz

lint:
	swift-format lint --strict --recursive --configuration .swift-format Package.swift Sources Tests Benchmarks Fuzz

clean:
	rm -rf .build
