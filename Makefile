# gillab: two commands on a fresh Debian 12 machine (root, apt reachable).
#   make lab    provision the machine, build, serve the course in JupyterLab on 127.0.0.1: the student
#               versions of the lectures, copied into $(LAB_DIR)/lectures (default ~/gillab/lectures)
#   make test   provision the machine, build, then the whole suite (what CI runs)
# While working (any user, once the machine is provisioned):
#   make build  the kernel and the package into build/prefix (incremental)
#   make check  what to run before every commit: lint, the C++ units, the Python suite and the kernel's
#               smoke suite, in about 5 minutes after an incremental build (docs/development.md)
#   make lint   clang-format, flake8, shellcheck and the function-length limit alone
# tools/provision installs what the machine needs (apt packages, CPython 3.13 and 3.13t built
# once per machine into $(GILLAB_CACHE)/cpython-3.13, Debian unstable's 3.14 and 3.15 into
# $(GILLAB_CACHE)/debian-sid); it is the only step that needs root, and a no-op the second time.
# The Lab front end (lab/) is built with npm (node 18+ on PATH); everything else comes from apt.
# Everything runs with Debian's /usr/bin/python3, never pyenv's python3.

PYTHON      := /usr/bin/python3
BUILD_DIR   := build
PREFIX      := $(CURDIR)/$(BUILD_DIR)/prefix
JUPYTER_DIR := $(PREFIX)/share/jupyter
PORT        ?= 8888
GILLAB_CACHE ?= /var/cache/gillab
EXECUTE     ?=
# make lab's folder: the student's own; the Lab copies the released lectures into its lectures/.
LAB_DIR     ?= $(HOME)/gillab
# pytest's cache (which the random-order plugin needs) stays in the build folder.
PYTEST      := $(PYTHON) -m pytest -o cache_dir=$(CURDIR)/$(BUILD_DIR)/pytest-cache
# Kernels and servers get a PATH without pyenv's shims.
CLEAN_PATH  := $(shell echo "$$PATH" | tr ':' '\n' | grep -v pyenv | paste -sd:)
RUN_ENV     := env PATH="$(CLEAN_PATH)" JUPYTER_PATH="$(JUPYTER_DIR)" PYTHONNOUSERSITE=1 GILLAB_CACHE="$(GILLAB_CACHE)"
# bench/ shares its kernel and server helpers with the tests (tests/support; pytest finds them by pyproject.toml).
BENCH_ENV   := $(RUN_ENV) PYTHONPATH="$(CURDIR)/tests/support"

.PHONY: all provision free-threaded-python sid-pythons build check lint lab-app lab classic test unit-test python-test kernel-check kernel-test client-test services-client grading-test fuzz-test soak-test soak load sanitize bench bench-one clean

# The node protocol client's packages: npm ci only when the lock file changes. Without npm
# the test that needs them says so and is skipped.
SERVICES_INSTALLED := tests/clients/services/node_modules/.installed

# The Lab bundle: npm ci only when the lock file changes, the bundler only when a source does.
LAB_INSTALLED := lab/node_modules/.installed
LAB_BUILT     := $(BUILD_DIR)/lab/.built
LAB_SOURCES   := lab/package.json lab/rspack.config.js lab/copy-assets.js $(wildcard lab/src/*.js lab/src/*.css)

all: build

# Installs only what is missing, so a ready machine pays nothing; needs root only when something is.
provision:
	GILLAB_CACHE="$(GILLAB_CACHE)" tools/provision

# Provisioning's two interpreter steps alone (root; each a no-op once done). A failure (no archive)
# stops nothing: what needs the interpreter skips, naming the target.
free-threaded-python:
	-GILLAB_CACHE="$(GILLAB_CACHE)" tools/build-free-threaded-python

sid-pythons:
	-GILLAB_CACHE="$(GILLAB_CACHE)" tools/build-sid-pythons

build:
	cmake -S . -B $(BUILD_DIR) -DCMAKE_INSTALL_PREFIX=$(PREFIX) -DPython_EXECUTABLE=$(PYTHON) >/dev/null
	cmake --build $(BUILD_DIR) -j2
	cmake --install $(BUILD_DIR) >/dev/null
	@echo "gillab installed under $(PREFIX) (kernelspec: $(JUPYTER_DIR)/kernels/gillab)"

unit-test: build
	cd $(BUILD_DIR) && ctest --output-on-failure

# The gillab package's Python modules on their own (no kernel).
python-test: build
	$(RUN_ENV) $(PYTEST) tests/python -q -rs

# The kernel's smoke suite (make check): tests marked `check` (conformance, each magic once with a
# usage error and an interrupt, a lecture cell of each kind); kernel-test runs the rest.
kernel-check: build
	$(RUN_ENV) $(PYTEST) tests/kernel -q -rs -m check

kernel-test: build
	$(RUN_ENV) $(PYTEST) tests/kernel -q -rs -m "not check"

client-test: build services-client lab-app
	$(RUN_ENV) $(PYTEST) tests/clients -q -rs --random-order

# gillab-grade end to end: release, a class of fabricated submissions, autograde, check.
grading-test: build
	$(RUN_ENV) $(PYTEST) tests/grading -q -rs

# What a developer runs before every commit; any user, once the machine is provisioned.
check: lint build unit-test python-test kernel-check

# clang-format, flake8, shellcheck and the function-length limit over every tracked file (tools/lint).
lint:
	$(PYTHON) tools/lint

# CI: provisioning first (the only root step), then check and everything check leaves out.
test: provision check kernel-test calibration-test client-test grading-test deploy-test image-test lectures-link-test \
	fuzz-test soak-test

$(SERVICES_INSTALLED): tests/clients/services/package.json tests/clients/services/package-lock.json
	cd tests/clients/services && npm ci --no-audit --no-fund && touch node_modules/.installed || \
		echo "npm ci failed in tests/clients/services: its test will be skipped"

services-client: $(SERVICES_INSTALLED)

$(LAB_INSTALLED): lab/package.json lab/package-lock.json
	@command -v npm >/dev/null || { echo "npm (node 18+) is needed to build the Lab front end"; exit 1; }
	cd lab && npm ci --no-audit --no-fund
	touch $@

$(LAB_BUILT): $(LAB_INSTALLED) $(LAB_SOURCES)
	cd lab && npm run build
	touch $@

lab-app: $(LAB_BUILT)

# libFuzzer targets (clang, a build of their own): each runs FUZZ_SECONDS.
FUZZ_SECONDS ?= 10
fuzz-test:
	@if command -v clang++ >/dev/null; then \
		CXX=clang++ cmake -S . -B build-fuzz -DGILLAB_FUZZ=ON -DGILLAB_FUZZ_SECONDS=$(FUZZ_SECONDS) >/dev/null && \
		cmake --build build-fuzz -j2 && cd build-fuzz && ctest --output-on-failure; \
	else echo "fuzz-test: no clang++, skipped"; fi

# The soak at a reduced count; `make soak` runs the full 1,000 of each.
SOAK_COUNT ?= 10
soak-test: build
	$(BENCH_ENV) $(PYTHON) bench/soak --count $(SOAK_COUNT)

soak: build
	$(BENCH_ENV) $(PYTHON) bench/soak --count 1000

# AddressSanitizer + UBSan build (build-asan): the unit tests and the kernel
# smoke test under it, then valgrind memcheck over the unit tests of the
# normal build. Not part of `make test` (see docs/development.md, Hardening: minutes).
# detect_leaks=0: CPython keeps its objects and arenas for the process's life
# and the kernel ends with _exit(); LeakSanitizer's exit scan would report all
# of that and takes so long that jupyter_client SIGTERMs the kernel on
# shutdown. ASan's own errors (overflows, use-after-free) still abort. The
# kernel is /usr/bin/python3, which is not instrumented: build-asan's
# kernelspec preloads the sanitizer runtimes (LD_PRELOAD in its env).
ASAN_ENV := ASAN_OPTIONS=detect_leaks=0:abort_on_error=0:halt_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
sanitize: build
	cmake -S . -B build-asan -DGILLAB_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DCMAKE_INSTALL_PREFIX=$(CURDIR)/build-asan/prefix -DPython_EXECUTABLE=$(PYTHON) >/dev/null
	cmake --build build-asan -j2
	cmake --install build-asan >/dev/null
	cd build-asan && env $(ASAN_ENV) ctest --output-on-failure
	$(RUN_ENV) $(ASAN_ENV) GILLAB_BUILD_DIR=build-asan $(PYTEST) tests/kernel/test_smoke.py \
		tests/kernel/test_gilbench_budget.py tests/kernel/test_interrupt.py tests/kernel/test_gilbench.py -q -rs
	valgrind --tool=memcheck --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
		$(BUILD_DIR)/tests/gillab_unit_tests --gtest_brief=1

# What `make bench` runs, in turn (bench/load last, with LOAD_KERNELS kernels).
BENCHES := kernel_latency gilbench_accuracy gilbench_run_overhead fork_cost pure_python_speed interpreters \
	probe_overhead gilwatch_overhead gil_trace gilwatch_exact switchinterval_python grading chart_cost
bench: build
	for name in $(BENCHES); do $(BENCH_ENV) $(PYTHON) bench/$$name || exit 1; done
	$(BENCH_ENV) $(PYTHON) bench/load --kernels $(LOAD_KERNELS)

# One benchmark with its options: make bench-one NAME=kernel_latency ARGS=--quick
bench-one: build
	$(BENCH_ENV) $(PYTHON) bench/$(NAME) $(ARGS)

# 20 kernels at once through one jupyter_server; the suite's tests/clients/test_load.py runs 6.
LOAD_KERNELS ?= 20
load: build
	$(BENCH_ENV) $(PYTHON) bench/load --kernels $(LOAD_KERNELS)

lab: provision build lab-app
ifeq ($(EXECUTE),1)
	mkdir -p $(BUILD_DIR)/notebooks
	for nb in notebooks/*.ipynb; do \
		[ -e "$$nb" ] || continue; \
		start=$$(date +%s); \
		$(RUN_ENV) $(PYTHON) -m nbconvert --to notebook --execute --ExecutePreprocessor.kernel_name=gillab \
			--ExecutePreprocessor.timeout=600 --output-dir $(BUILD_DIR)/notebooks "$$nb" || exit 1; \
		echo "$$nb: executed in $$(( $$(date +%s) - start )) s"; \
		$(RUN_ENV) $(PYTHON) -m nbconvert --to html --output-dir $(BUILD_DIR)/notebooks \
			"$(BUILD_DIR)/notebooks/$$(basename $$nb)" || exit 1; \
	done
else
	mkdir -p $(LAB_DIR)
	$(RUN_ENV) $(PYTHON) lab/gillab_lab.py --ip=127.0.0.1 --port=$(PORT) --no-browser --allow-root \
		--ServerApp.root_dir=$(LAB_DIR)
endif

# The classic Notebook 6.4 on the instructor versions in notebooks/ (no student copies).
classic: build
	mkdir -p notebooks
	$(RUN_ENV) $(PYTHON) -m notebook --ip=127.0.0.1 --port=$(PORT) --no-browser --allow-root \
		--notebook-dir=notebooks --NotebookApp.kernel_spec_manager_class=jupyter_client.kernelspec.KernelSpecManager

clean:
	rm -rf $(BUILD_DIR) build-asan build-fuzz

# --- deploy ---
# make deb: build-deb/gillab_<version>_amd64.deb (CPack's DEB generator), everything installed
# under /usr: the kernel, its kernelspec, gillab-grade, the Lab as a server extension, the lectures.
# A build of its own beside build/ (the same depth, so ccache reuses build/'s objects).
DEB_BUILD_DIR := build-deb
.PHONY: deb deploy-test deb-clean
deb: build lab-app
	cmake -S . -B $(DEB_BUILD_DIR) -DCMAKE_INSTALL_PREFIX=/usr -DPython_EXECUTABLE=$(PYTHON) \
		-DGILLAB_LAB_BUNDLE=$(CURDIR)/$(BUILD_DIR)/lab >/dev/null
	cmake --build $(DEB_BUILD_DIR) -j2
	cd $(DEB_BUILD_DIR) && cpack -G DEB >/dev/null
	@ls -l $(DEB_BUILD_DIR)/gillab_*_amd64.deb

# The package installed into a fresh minimal Debian 12 root (tools/build-debian-root, made once
# per machine) and used there as a student would (tests/deploy).
deploy-test: deb
	$(RUN_ENV) $(PYTEST) tests/deploy/test_deb.py -q -rs


deb-clean:
	rm -rf $(DEB_BUILD_DIR)

clean: deb-clean

# --- calib ---
# Every magic held to the plain script of its design, in one kernel: a small size in the suite
# (calibration-test, for `test`), the full size and its table with `make calibrate`.
.PHONY: calibration-test calibrate
calibration-test: build
	$(RUN_ENV) $(PYTEST) tests/calibration -q -rs

calibrate: build
	$(RUN_ENV) $(PYTHON) tests/calibration/calibrate.py --size full --pairs $(CALIBRATE_PAIRS)

CALIBRATE_PAIRS ?= 7

# --- deploy ---
# make image: the single-user image for JupyterHub and Zero to JupyterHub (share/container), built
# from the package with buildah on this machine's minimal Debian 12 root, tagged
# gillab-singleuser:<version>. image-test runs it as a hub would (tests/deploy/test_image.py).
.PHONY: image image-test
image: deb
	tools/build-image $(DEB_BUILD_DIR)/gillab_*_amd64.deb

image-test: image
	$(RUN_ENV) $(PYTEST) tests/deploy/test_image.py -q -rs

# In `make test`: 3-7 minutes of build after `make deb` (which deploy-test needs anyway) and 20 s of
# tests, the only check of what a class's hub runs. Skipped without root or buildah.

# The lectures handed out by an nbgitpuller link, as docs/instructors.md says (a minute).
.PHONY: lectures-link-test
lectures-link-test: build
	$(RUN_ENV) $(PYTEST) tests/deploy/test_lectures_by_link.py -q -rs
