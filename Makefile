# ccb — thin wrapper: `make reproduce` and `make test` (README.md). Everything else is CMake/CTest.
#
#   make deps        make sure the Debian packages are present (installs them when run as root)
#   make build       configure into $(BUILD_DIR) and build (warnings are errors, as in CI)
#   make test        deps + build + the CTest suite: unit tests (label unit) and the quick gate tier
#                    (with the gates as JUnit XML, $(BUILD_DIR)/junit/gate.CASE.xml); on a failure
#                    its last lines name each failed test, its time against its guard, and the
#                    command that reruns it (CI/run_ctest.sh)
#   make test-loaded the same as make test with two CPU-bound processes beside it (the slow or
#                    busy machine rehearsed: no verdict may depend on the machine's speed)
#   make test-full   deps + build + the same and the full gate tier (every study at the papers'
#                    settings: ctest -C Full)
#   make reproduce   deps (and the optional MuJoCo peer) + build + every study, figure and gate;
#                    writes results/ and results/README.md
#   make clean       remove $(BUILD_DIR) (results/ is kept)

BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= 2
RESULTS ?= results
# Further CMake options, e.g. CCB_CMAKE_ARGS=-DCCB_OPTIONAL=OFF: build without the optional parts even
# where their packages are installed (what a fresh machine builds; .ci/run tests both)
CCB_CMAKE_ARGS ?=
# New build directories use Ninja where it is installed (ninja-build, one of DEB_PACKAGES): the
# build of make test takes 24 s instead of 32 s with Unix Makefiles on the 2-core development
# machine. CMake keeps the generator of a directory already configured; CMAKE_GENERATOR in the
# environment chooses another.
ifeq ($(origin CMAKE_GENERATOR),undefined)
CMAKE_GENERATOR := $(if $(shell command -v ninja 2>/dev/null),Ninja,Unix Makefiles)
endif
export CMAKE_GENERATOR

# What the architecture names: compiler and build tools, GSL, SuiteSparse (CHOLMOD), LAPACK,
# cJSON, gnuplot, clang-format (the style check of make test), xmllint (libxml2-utils: the JUnit
# check of make test). Nothing is downloaded at build time.
DEB_PACKAGES := build-essential cmake ninja-build pkg-config libgsl-dev libsuitesparse-dev \
                liblapack-dev libcjson-dev gnuplot-nox clang-format libxml2-utils
# Optional, for `make reproduce` only: MuJoCo, ODE and Bullet (with g++ for ccb's Bullet module),
# the peers of `ccb bench --peers` and of the peers studies (speed §3), and FCLIB and Siconos numerics (the FCLIB export and the rigid-limit studies, docs
# formulation-convex §16), and GNU parallel (guide §11; cli.manifest runs
# its manifests with it, with xargs -P 2 without it). Installed when run as root; their absence
# only leaves those out.
OPTIONAL_PACKAGES := libmujoco-dev libode-dev libbullet-dev g++ libfclib-dev libsiconos-numerics-dev parallel

.PHONY: all deps deps-optional configure build test test-full test-loaded reproduce clean

all: build

deps:
	@if ! command -v dpkg-query >/dev/null 2>&1; then \
	  echo "make deps: not a Debian system; make sure these are installed: $(DEB_PACKAGES)"; \
	  exit 0; \
	fi; \
	missing=""; \
	for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "make deps: installing$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y --no-install-recommends $$missing || \
	    { apt-get update && apt-get install -y --no-install-recommends $$missing; } || exit 1; \
	else \
	  echo "make deps: missing Debian packages:$$missing"; \
	  echo "run:  sudo apt-get install -y$$missing"; \
	  exit 1; \
	fi

deps-optional:
	@if command -v dpkg-query >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  for p in $(OPTIONAL_PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || \
	      { echo "make deps-optional: installing $$p"; \
	        DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$p || \
	        echo "make deps-optional: $$p not installed; the part that needs it is left out"; }; \
	  done; \
	fi; true

configure: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCCB_WERROR=ON $(CCB_CMAKE_ARGS)

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

# After the suite: the gate table of each tier that ran (gates of the other tier are not listed).
define print_gates
	@for f in $(BUILD_DIR)/gate-results/$(1)/*/gates.csv; do \
	  [ -f "$$f" ] && { echo "== $$f"; grep -v ',SKIP,' "$$f" | sed 's/,/  /g'; }; \
	done; true
endef

test: build
	bash CI/run_ctest.sh $(BUILD_DIR) -j $(JOBS)
	$(call print_gates,quick)
	@echo "== JUnit XML of the gates (one test case per gate): $(BUILD_DIR)/junit/gate.CASE.xml"

test-full: build
	bash CI/run_ctest.sh $(BUILD_DIR) -C Full -j $(JOBS)
	$(call print_gates,quick)
	$(call print_gates,full)

# The slow machine rehearsed: make test with two CPU-bound processes beside it (CI/loaded.sh)
test-loaded: build
	bash CI/loaded.sh bash CI/run_ctest.sh $(BUILD_DIR) -j $(JOBS)
	$(call print_gates,quick)

reproduce: deps-optional build
	$(BUILD_DIR)/ccb reproduce --out $(RESULTS) --jobs $(JOBS)

clean:
	rm -rf $(BUILD_DIR)
