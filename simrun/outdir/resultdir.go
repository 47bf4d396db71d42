package outdir

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
)

// Without -out, every invocation gets a result folder of its own,
// out/<name>/001, 002, … (docs/output.md, "Files"), and out/<name>/latest
// names the newest. So no command simrun prints, run again, can replace an
// earlier result: a repro.yaml run from out/swarm/001 writes a new folder.

// LatestName is the entry in a base folder that names its newest result:
// a relative symbolic link on Unix, a small text file holding the folder's
// name elsewhere (linkLatest, readLatest).
const LatestName = "latest"

// nextName names the staged folder of a result whose number is not yet
// allocated (its temporary is ".next.simrun-tmp-<pid>-…").
const nextName = "next"

// maxNumberDigits bounds the digits of a result folder's number read back
// (a longer all-digit name is not simrun's).
const maxNumberDigits = 9

// OutputDest is where an invocation's output folder goes.
type OutputDest struct {
	// dir is the -out folder: exactly that folder, replaced only if simrun
	// made it.
	dir string
	// base, without -out: a new numbered folder in it, and base/latest.
	base string
}

// DestFor is the destination of out (-out, "" if not given), with base the
// default's folder (out/<name>).
func DestFor(out, base string) OutputDest {
	if out != "" {
		return OutputDest{dir: out}
	}
	return OutputDest{base: base}
}

// Check refuses, before any work, a destination simrun may not write: a
// -out path it may not replace, or a base that is not a folder.
func (d OutputDest) Check() error {
	if d.dir != "" {
		return CheckReplaceable(d.dir)
	}
	if st, err := os.Stat(d.base); err == nil && !st.IsDir() {
		return usagef("%s exists and is not a folder: simrun numbers its results in it (%s); move it or choose -out", d.base, filepath.Join(d.base, seqName(1)))
	}
	// An output folder itself (-out there, or a simrun that wrote out/<name>
	// whole): results put in it would go with it when it is replaced.
	if _, err := os.Stat(filepath.Join(d.base, MarkerFile)); err == nil {
		return usagef("%s is a single output folder (written with -out, or by an older simrun): simrun now numbers its results inside %s/ and will not put them where replacing that folder would remove them; rename it (say to %s-old) or choose -out", d.base, d.base, d.base)
	}
	return nil
}

// Stage creates the destination's staged folder; commit puts it in place.
func (d OutputDest) Stage() (*StagedFolder, error) {
	if d.dir != "" {
		return StageFolder(d.dir)
	}
	if err := d.Check(); err != nil {
		return nil, err
	}
	tmp, made, err := stageTemp(d.base, nextName)
	if err != nil {
		return nil, err
	}
	return &StagedFolder{Tmp: tmp, base: filepath.Clean(d.base), made: made}, nil
}

// seqName is result number n's folder name: at least three digits.
func seqName(n int) string {
	s := strconv.Itoa(n)
	if len(s) < 3 {
		s = strings.Repeat("0", 3-len(s)) + s
	}
	return s
}

// SeqNumber is the number of a result folder's name (ok false for any
// other name).
func SeqNumber(name string) (int, bool) {
	if len(name) < 3 || len(name) > maxNumberDigits {
		return 0, false
	}
	for i := 0; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(name)
	return n, err == nil && seqName(n) == name
}

// highestNumber is the highest result number in base (0: none).
func highestNumber(base string) int {
	entries, err := os.ReadDir(base)
	if err != nil {
		return 0
	}
	high := 0
	for _, e := range entries {
		if n, ok := SeqNumber(e.Name()); ok {
			high = max(high, n)
		}
	}
	return high
}

// reserveNumbered makes the next free numbered folder in base, empty: the
// folder after the highest there. Mkdir allocates it atomically, so two
// concurrent simruns never get the same one. The reservation is tracked:
// the signal handler removes it while it is still empty.
func reserveNumbered(base string) (string, error) {
	if err := os.MkdirAll(base, 0o755); err != nil {
		return "", err
	}
	n := highestNumber(base) + 1
	for tries := 0; tries < 1000; tries++ {
		dir := filepath.Join(base, seqName(n))
		err := reserve(dir)
		switch {
		case err == nil:
			return dir, nil
		case errors.Is(err, fs.ErrExist):
			n++ // another run took it
		case errors.Is(err, fs.ErrNotExist):
			if err := os.MkdirAll(base, 0o755); err != nil { // base removed meanwhile
				return "", err
			}
		default:
			return "", err
		}
	}
	return "", errors.New(base + ": could not allocate a result folder (1000 tries)")
}

// reserve makes dir, tracked as a reservation (under the temporaries' lock,
// so a signal never leaves one untracked).
func reserve(dir string) error {
	temps.Lock()
	defer temps.Unlock()
	if temps.dead {
		return errors.New("interrupted")
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	if temps.reserved == nil {
		temps.reserved = map[string]bool{}
	}
	temps.reserved[dir] = true
	return nil
}

// unreserve forgets a reservation (filled, or removed by the caller).
func unreserve(dir string) {
	temps.Lock()
	delete(temps.reserved, dir)
	temps.Unlock()
}

// errNumberTaken says another process took a numbered folder between its
// reservation and the rename (possible only where a folder cannot be
// renamed over an empty one, replaceEmptyDir).
var errNumberTaken = errors.New("result number taken")

// installNumbered puts the staged folder in a new numbered folder of base:
// it reserves the folder and renames the staged one over the empty
// reservation (nothing of anyone's is replaced); finish points base/latest
// at it.
func (s *StagedFolder) installNumbered() error {
	for tries := 0; ; tries++ {
		dir, err := reserveNumbered(s.base)
		if err != nil {
			s.Abort()
			return err
		}
		err = replaceEmptyDir(s.Tmp, dir) // on failure, dir is no longer ours
		unreserve(dir)
		if err == nil {
			UntrackTemp(s.Tmp)
			keepMade(s.made)
			s.Out = dir
			break
		}
		if !errors.Is(err, errNumberTaken) || tries >= 100 {
			s.Abort()
			return err
		}
	}
	return nil
}

// linkSeq numbers this process's temporary latest links.
var linkSeq atomic.Int64

// pointLatest makes base/latest name the result folder name, replacing it
// atomically (a temporary made beside it, then renamed over it), but only
// if it is simrun's: absent, or naming a numbered folder.
func pointLatest(base, name string) error {
	link := filepath.Join(base, LatestName)
	if _, err := os.Lstat(link); err == nil {
		if old, ok := readLatest(link); !ok {
			return usagef("%s is not simrun's (not a link to a numbered result): left as it is", link)
		} else if _, ok := SeqNumber(old); !ok {
			return usagef("%s names %q, not a numbered result: left as it is", link, old)
		}
	}
	cleanStale(base, LatestName)
	tmp := filepath.Join(base, tempPrefix(LatestName)+"link"+strconv.FormatInt(linkSeq.Add(1), 10))
	if err := TrackTemp(tmp); err != nil {
		return err
	}
	defer UntrackTemp(tmp)
	if err := writeLatest(tmp, name); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, link); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
