package hooks

import "flag"

// update rewrites what the tests generate or compare against: the OpenCode plugin's tool table
// and the golden replies of every host (go test ./hooks -update).
var update = flag.Bool("update", false, "rewrite generated files (the OpenCode plugin's tool table, the golden replies)")
