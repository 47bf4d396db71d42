package scenario

import (
	"fmt"
	"io/fs"
	"os"
)

// OpenRegular opens path for reading if it is a regular file (a symbolic
// link to one included), and refuses anything else with one line: a named
// pipe nobody writes would block the open or the read forever, a device
// (/dev/zero, a terminal) would feed it endless or interactive input. It
// checks before opening and again on the open file (the path may change in
// between); on Unix the open itself does not block (O_NONBLOCK, which
// leaves reads of a regular file as they are).
func OpenRegular(path string) (*os.File, error) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return nil, notRegular(path, st.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|openNonBlock, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, notRegular(path, st.Mode())
	}
	return f, nil
}

// notRegular is the error for a path of mode m that is not a regular file.
func notRegular(path string, m fs.FileMode) error {
	what := "not a regular file"
	switch {
	case m.IsDir():
		what = "a directory"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0 || m&fs.ModeCharDevice != 0:
		what = "a device"
	}
	return fmt.Errorf("%s: is %s, not a regular file", path, what)
}
