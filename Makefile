# ccb — thin wrapper: `make reproduce` and `make test` (README.md). Everything else is CMake/CTest.
#
#   make deps        make sure the Debian packages are present (installs them when run as root)
#   make build       configure into $(BUILD_DIR) and build (warnings are errors, as in CI)
#   make test        deps + build + the CTest suite: unit tests (label unit) and gates (label gate)
#   make reproduce   deps + build + every study, figure and gate; writes results/ and results/README.md
#   make clean       remove $(BUILD_DIR) (results/ is kept)

BUILD_DIR ?= build
BUILD_TYPE ?= RelWithDebInfo
JOBS ?= 2
RESULTS ?= results

# What the architecture names: compiler and build tools, GSL, SuiteSparse (CHOLMOD), LAPACK,
# cJSON, gnuplot. Nothing is downloaded at build time.
DEB_PACKAGES := build-essential cmake pkg-config libgsl-dev libsuitesparse-dev liblapack-dev \
                libcjson-dev gnuplot-nox

.PHONY: all deps configure build test reproduce clean

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

configure: deps
	cmake -S . -B $(BUILD_DIR) -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) -DCCB_WERROR=ON

build: configure
	cmake --build $(BUILD_DIR) -j $(JOBS)

test: build
	cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)
	@for f in $(BUILD_DIR)/gate-results/*/gates.csv; do \
	  [ -f "$$f" ] && { echo "== $$f"; sed 's/,/  /g' "$$f"; }; \
	done; true

reproduce: build
	$(BUILD_DIR)/ccb reproduce --out $(RESULTS) --jobs $(JOBS)

clean:
	rm -rf $(BUILD_DIR)
