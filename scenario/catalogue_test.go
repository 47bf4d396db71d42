package scenario

import "path/filepath"

// catalogue is the folder of shipped scenario files, beside this package:
// the loader lives in scenario/, the stories it reads in scenarios/.
const catalogue = "../scenarios"

// shipped names a shipped scenario file by its base name.
func shipped(name string) string { return filepath.Join(catalogue, name) }
