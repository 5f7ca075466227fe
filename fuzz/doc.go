// Package fuzz holds the project's native Go fuzz targets. They are seeded
// from the replies in testdata/ (and from the shared examples when they are
// beside the project) and run as ordinary tests on their seeds:
//
//	go test ./fuzz                          # the seeds only
//	go test ./fuzz -fuzz=FuzzParse -fuzztime=30s
//	go test ./fuzz -fuzz=FuzzRoundTrip -fuzztime=30s
//	go test ./fuzz -fuzz=FuzzRenderParse -fuzztime=30s
package fuzz
