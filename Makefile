# tracestreamer — see README.md.
GO      ?= go
BIN     := bin
CACHE   := .cache
PROTOC_GEN_GO_VERSION := v1.36.12

.PHONY: all build run test proto bench fuzz clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# Wraps the bundled node captures (testdata/node) into an .htrace file as the
# ArkTS plugin writes them, converts it and prints the summary.
run: build
	@mkdir -p $(CACHE)
	$(BIN)/mkhtrace -snapshot testdata/node/snapshot.heapsnapshot.gz \
		-cpuprofile testdata/node/profile.cpuprofile -o $(CACHE)/example.htrace
	$(BIN)/tracestreamer $(CACHE)/example.htrace -o $(CACHE)/example.db

# The whole suite under the race detector, then the tests that stream large
# inputs or read them back many times (skipped under -race, where they take
# many minutes), and benchrun's peak RSS test (the race detector's memory
# hides what it checks), without it.
test:
	$(GO) vet ./...
	$(GO) test -race -count=1 -timeout 45m ./...
	$(GO) test -count=1 -timeout 45m -run 'Oversized|Hostile|WritersAgree' ./ingest
	$(GO) test -count=1 -timeout 45m -run 'Large' ./store
	$(GO) test -count=1 -timeout 45m -run 'RoundTrip|RowsOutOfFileOrder' ./export/devtoolsexport
	$(GO) test -count=1 -timeout 45m -run 'MeasurePeakNotInherited' ./internal/cmd/benchrun

# Regenerates proto/hiprofpb from proto/*.proto (needs protoc on PATH).
proto:
	$(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	PATH="$$($(GO) env GOPATH)/bin:$$PATH" protoc --proto_path=proto \
		--go_out=proto/hiprofpb --go_opt=paths=source_relative proto/*.proto

clean:
	rm -rf $(BIN) $(CACHE)

# Generates large inputs with node into $(CACHE)/bench (once), converts each and
# prints MB/s, rows/s, peak RSS and the bare insert time (and, for the snapshot
# and the trace, the Parquet export's rows/s and peak RSS); then the Go
# micro-benchmarks of the hot paths.
bench: build
	$(GO) run ./internal/cmd/benchrun -bin $(BIN) -cache $(CACHE)/bench
	$(GO) test -run '^$$' -bench . ./parser/... ./rows/ ./store/ ./export/...

# Runs every fuzz target for FUZZTIME each (go test -fuzz) and prints the
# executions per target; findings land in the package's testdata/fuzz/ and then
# run as ordinary tests.
FUZZTIME ?= 1m
fuzz:
	scripts/fuzz $(FUZZTIME)
