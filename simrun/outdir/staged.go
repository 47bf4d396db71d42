package outdir

import "strings"

import "os"

import "strconv"

import "path/filepath"

// StagedFolder is an output folder built under a temporary name.
type StagedFolder struct {
	// out is the folder it becomes: the -out folder, or (base set) the
	// numbered folder commit allocates in base.
	Out, Tmp string
	base     string
	// latestNote says why base/latest was left as it was ("": updated).
	LatestNote string
	// made are the parent folders made for it, removed on abort.
	made []string
	// old is the previous output folder, moved aside by install and
	// removed by finish (or put back by rollback); "" if there was none.
	old string
}

// StageFolder checks that out may be replaced, cleans stale temporaries
// beside it, and creates the temporary folder (mode 0755 before umask) with
// the marker in it.
func StageFolder(out string) (*StagedFolder, error) {
	out = filepath.Clean(out)
	if err := CheckReplaceable(out); err != nil {
		return nil, err
	}
	busy := func(pid int) error {
		return usagef("%s: another simrun (process %d) is writing this folder now; wait for it to finish, or choose another -out", out, pid)
	}
	// Killed writers' temporaries go first (as stageTemp would remove
	// them); a live one's stays, and refuses this run.
	cleanStale(filepath.Dir(out), filepath.Base(out))
	if pid, ok := liveWriter(filepath.Dir(out), filepath.Base(out), ""); ok {
		return nil, busy(pid)
	}
	tmp, made, err := stageTemp(filepath.Dir(out), filepath.Base(out))
	if err != nil {
		return nil, err
	}
	// Two that started at once each see the other's temporary now: the
	// one whose temporary's name sorts first writes, the other refuses.
	if pid, ok := liveWriter(filepath.Dir(out), filepath.Base(out), filepath.Base(tmp)); ok {
		os.RemoveAll(tmp)
		UntrackTemp(tmp)
		removeMade(made)
		return nil, busy(pid)
	}
	return &StagedFolder{Out: out, Tmp: tmp, made: made}, nil
}

// liveWriter reports another process writing output folder name in dir
// (issue 38 point 10): a staged temporary of name whose marker another
// live process holds locked, with its process ID. With mine set (this
// process's own temporary), only a writer whose temporary sorts before it
// counts, so of two that staged at once exactly one goes on.
func liveWriter(dir, name, mine string) (int, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, false
	}
	prefix := "." + name + TmpTag
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok || !e.IsDir() || (mine != "" && e.Name() >= mine) {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if held, exists := LockHeld(filepath.Join(dir, e.Name(), MarkerFile)); held && exists {
			return pid, true
		}
	}
	return 0, false
}

// stageTemp creates, in parent, the temporary folder that becomes parent's
// entry name, with the marker in it, after removing the stale temporaries
// of killed runs for that name. made are the parent folders it made
// (removed again if the output is not committed).
func stageTemp(parent, name string) (tmp string, made []string, err error) {
	if made, err = mkdirTracked(parent); err != nil {
		return "", nil, err
	}
	fail := func(err error) (string, []string, error) {
		if tmp != "" {
			os.RemoveAll(tmp)
			UntrackTemp(tmp)
		}
		removeMade(made)
		return "", nil, err
	}
	cleanStale(parent, name)
	// Born under NewTag, its marker created and locked, then renamed to
	// its TmpTag name: a TmpTag folder's free lock means its writer died.
	if tmp, err = os.MkdirTemp(parent, birthPrefix(name)); err != nil {
		return fail(err)
	}
	if err := TrackTemp(tmp); err != nil {
		return fail(err)
	}
	if err := os.Chmod(tmp, 0o755&^umask()); err != nil {
		return fail(err)
	}
	marker := filepath.Join(tmp, MarkerFile)
	f, err := os.OpenFile(marker, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fail(err)
	}
	f.Close()
	born := bornName(tmp)
	HoldLock(born, marker)
	if err := TrackTemp(born); err != nil {
		UntrackTemp(born)
		return fail(err)
	}
	if err := os.Rename(tmp, born); err != nil {
		UntrackTemp(born)
		return fail(err)
	}
	UntrackTemp(tmp)
	tmp, marker = born, filepath.Join(born, MarkerFile)
	if err := os.WriteFile(marker, []byte(MarkerText), 0o644); err != nil {
		return fail(err)
	}
	return tmp, made, nil
}

// Abort removes the staged folder.
func (s *StagedFolder) Abort() {
	os.RemoveAll(s.Tmp)
	UntrackTemp(s.Tmp)
	removeMade(s.made)
}

// Commit puts the staged folder in place of out (install, then finish):
// a previous output folder (checked again: it must still be simrun's or
// empty) is moved aside under a temporary name and removed once the new one
// is in place. A numbered result (base set) goes to a new numbered folder
// instead (installNumbered), replacing nothing, and base/latest names it.
func (s *StagedFolder) Commit() error {
	if err := s.Install(); err != nil {
		return err
	}
	s.Finish()
	return nil
}

// Install puts the staged folder in place, keeping what it replaced until
// Finish (or rollback, which undoes it). On error it has aborted.
func (s *StagedFolder) Install() error {
	if s.base != "" {
		return s.installNumbered()
	}
	if err := CheckReplaceable(s.Out); err != nil {
		s.Abort()
		return err
	}
	var old string
	if _, err := os.Lstat(s.Out); err == nil {
		old = filepath.Join(filepath.Dir(s.Out), tempPrefix(s.Out)+"old")
		if err := TrackTemp(old); err != nil {
			s.Abort()
			return err
		}
		if err := os.Rename(s.Out, old); err != nil {
			UntrackTemp(old)
			s.Abort()
			return err
		}
	}
	if err := os.Rename(s.Tmp, s.Out); err != nil {
		if old != "" {
			os.Rename(old, s.Out) // put the previous output back
			UntrackTemp(old)
		}
		s.Abort()
		return err
	}
	UntrackTemp(s.Tmp)
	keepMade(s.made)
	s.old = old
	return nil
}

// Finish completes an install: the replaced folder is removed, and a
// numbered result becomes base/latest.
func (s *StagedFolder) Finish() {
	if s.old != "" {
		os.RemoveAll(s.old)
		UntrackTemp(s.old)
		s.old = ""
	}
	if s.base != "" {
		if err := pointLatest(s.base, filepath.Base(s.Out)); err != nil {
			s.LatestNote = err.Error()
		}
	}
}

// Rollback undoes an install whose companions could not be put in place:
// the new folder is removed (it is simrun's: it was just made) and the one
// it replaced goes back, so the output is as it was before the run.
func (s *StagedFolder) Rollback() {
	gone := filepath.Join(filepath.Dir(s.Out), tempPrefix(s.Out)+"undo")
	if TrackTemp(gone) == nil {
		if os.Rename(s.Out, gone) == nil {
			os.RemoveAll(gone)
		}
		UntrackTemp(gone)
	}
	if s.old != "" {
		os.Rename(s.old, s.Out)
		UntrackTemp(s.old)
		s.old = ""
	}
	removeMade(s.made)
}
