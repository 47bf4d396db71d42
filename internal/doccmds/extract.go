// Package doccmds finds the commands in electsim's Markdown documentation so
// a test can run every one of them with its documented outcome: the docs are
// executable, and a doc change that breaks a command fails CI.
//
// Commands come from two places. Every line of a ```sh (or bash, shell)
// fence is a command: `\` continuations are joined, `# comments` stripped,
// and `cd DIR` (alone or as `cd DIR && …`) changes the directory of the
// fence's later lines, as in a shell. Inline code in prose and tables is a
// command when it starts with `simrun` or `go run|test|build|install|vet`
// (after optional VAR=value assignments). A command is then classified:
// a synopsis (it has a placeholder) and, for inline code only, a mention (it
// names no operand) are not run; everything else is run unless a marker
// skips it with a reason. docs/testing.md, "Executable docs", is the user's
// description of these rules.
package doccmds

import (
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Class says whether and why a command is run.
type Class int

const (
	// Run: the test runs the command and checks its exit status.
	Run Class = iota
	// Synopsis: the command has a placeholder (F, FILE, N, DIR, …, [-flag]);
	// it shows a form, not a command.
	Synopsis
	// Mention: inline code naming a flag or subcommand in prose
	// (`simrun -algo`, `simrun merge`, `go test -race`): it has no operand.
	Mention
	// Skipped: a `<!-- doccmds: skip REASON -->` marker says why it is not run.
	Skipped
)

func (c Class) String() string {
	return [...]string{"run", "synopsis", "mention", "skipped"}[c]
}

// Command is one command found in a Markdown file.
type Command struct {
	File string // Markdown file, slash-separated, relative to the repository root
	Line int    // 1-based line of the command's first line
	Text string // the command as written: continuations joined, comment stripped
	Dir  string // working directory, relative to the repository root ("." for the root)
	// Fence is the 1-based line of the opening fence of the command's block,
	// 0 for inline code.
	Fence  int
	Class  Class
	Reason string // why a command is not run (Synopsis, Mention, Skipped)
	Exit   int    // documented exit status (marker `exit N`), 0 by default
	// Stdout, when not empty, is the documented output of the command: a
	// fence marked `<!-- doccmds: stdout of CMD -->` in the same file.
	Stdout string
}

// Where names the command's place for messages: file:line.
func (c Command) Where() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

// Problem is a documentation error the extractor found: a command-like line
// in an unlabeled fence, a marker it cannot read, a stdout marker naming no
// command.
type Problem struct {
	File string
	Line int
	Msg  string
}

func (p Problem) Error() string { return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg) }

// markers are the directives of `<!-- doccmds: … -->` comments.
type markers struct {
	exit     *int
	skip     string
	stdoutOf string
}

var (
	fenceRE  = regexp.MustCompile("^\\s*(```+|~~~+)\\s*([A-Za-z0-9_+-]*)")
	markerRE = regexp.MustCompile(`<!--\s*doccmds:\s*(.*?)\s*-->`)
	// An inline code span, and a marker right after it.
	inlineRE = regexp.MustCompile("`([^`]+)`(\\s*<!--\\s*doccmds:\\s*(.*?)\\s*-->)?")
	// Leading VAR=value assignments of a command.
	envRE = regexp.MustCompile(`^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*`)
	// A command's start: the programs whose commands inline code can hold.
	cmdStartRE = regexp.MustCompile(`^(?:simrun(?:\s|$)|go\s+(?:run|test|build|install|vet)\s)`)
	// A placeholder: an upper-case word (F, FILE, N, DIR, PATH, METRIC) not
	// part of a longer word nor a $VARIABLE; "…"; a bracketed option; an
	// angle-bracketed name (out/<name>/repro.yaml).
	placeholderRE = regexp.MustCompile(`(?:^|[^A-Za-z0-9_$.-])[A-Z][A-Z0-9_]*(?:[^A-Za-z0-9_=]|$)|…|(?:^|\s)\[|<[A-Za-z][A-Za-z0-9_-]*>`)
	cdRE          = regexp.MustCompile(`^cd\s+(\S+)\s*(?:&&\s*(.*))?$`)
)

// shellLangs are the fence languages whose lines are commands.
var shellLangs = map[string]bool{"sh": true, "bash": true, "shell": true}

// noOperand are simrun's first words that make a whole command by
// themselves; inline `simrun list` is run, inline `simrun merge` is a mention.
var noOperand = map[string]bool{"list": true, "help": true, "-version": true, "version": true}

// Extract returns the commands of one Markdown file and the problems found
// in it. file is its path relative to the repository root (slash-separated),
// moduleDir the directory its commands start in: the directory of the
// nearest go.mod above it.
func Extract(file, moduleDir string, src []byte) ([]Command, []Problem) {
	var (
		cmds     []Command
		problems []Problem
		pending  markers // markers on the lines right before a fence
		stdouts  []struct {
			cmd  string
			line int
			text string
		}
	)
	lines := strings.Split(string(src), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := fenceRE.FindStringSubmatch(line); m != nil {
			fence, lang := m[1], strings.ToLower(m[2])
			start := i + 1
			var body []string
			for i++; i < len(lines); i++ {
				if strings.HasPrefix(strings.TrimSpace(lines[i]), fence[:3]) &&
					strings.Trim(strings.TrimSpace(lines[i]), fence[:1]) == "" {
					break
				}
				body = append(body, lines[i])
			}
			switch {
			case shellLangs[lang]:
				cmds = append(cmds, fenceCommands(file, moduleDir, start, body, pending)...)
			case lang == "":
				for j, l := range body {
					if cmdStartRE.MatchString(envRE.ReplaceAllString(strings.TrimSpace(l), "")) {
						problems = append(problems, Problem{file, start + 1 + j,
							"a command in a fence with no language: mark the fence ```sh if it holds commands, ```text if it is output"})
						break
					}
				}
			}
			if pending.stdoutOf != "" {
				stdouts = append(stdouts, struct {
					cmd  string
					line int
					text string
				}{pending.stdoutOf, start, strings.Join(body, "\n") + "\n"})
			}
			pending = markers{}
			continue
		}
		if m := markerRE.FindStringSubmatch(line); m != nil && strings.TrimSpace(markerRE.ReplaceAllString(line, "")) == "" {
			if err := pending.parse(m[1]); err != nil {
				problems = append(problems, Problem{file, i + 1, err.Error()})
			}
			continue
		}
		if strings.TrimSpace(line) != "" && pending != (markers{}) {
			problems = append(problems, Problem{file, i + 1, "a doccmds marker line must come right before a fence"})
			pending = markers{}
		}
		for _, m := range inlineRE.FindAllStringSubmatch(line, -1) {
			text := strings.TrimSpace(m[1])
			if !cmdStartRE.MatchString(envRE.ReplaceAllString(text, "")) {
				continue
			}
			var mk markers
			if m[3] != "" {
				if err := mk.parse(m[3]); err != nil {
					problems = append(problems, Problem{file, i + 1, err.Error()})
				}
			}
			c := Command{File: file, Line: i + 1, Text: text, Dir: moduleDir}
			classify(&c, true)
			mk.apply(&c)
			cmds = append(cmds, c)
		}
	}
	for _, s := range stdouts {
		found := false
		for k := range cmds {
			if cmds[k].Text == s.cmd {
				cmds[k].Stdout, found = s.text, true
			}
		}
		if !found {
			problems = append(problems, Problem{file, s.line, fmt.Sprintf("stdout of %q: no such command in this file", s.cmd)})
		}
	}
	return cmds, problems
}

// fenceCommands reads the commands of one shell fence whose first body line
// is line start+1.
func fenceCommands(file, dir string, start int, body []string, mk markers) []Command {
	var cmds []Command
	for j := 0; j < len(body); j++ {
		first := start + 1 + j
		text := stripComment(body[j])
		for strings.HasSuffix(text, `\`) && j+1 < len(body) {
			j++
			text = strings.TrimSpace(strings.TrimSuffix(text, `\`)) + " " + strings.TrimSpace(stripComment(body[j]))
		}
		text = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "$ "))
		if text == "" {
			continue
		}
		next := dir
		if m := cdRE.FindStringSubmatch(text); m != nil {
			next = path.Clean(path.Join(dir, m[1]))
			if m[2] == "" { // a line of its own: only the directory changes
				dir = next
				continue
			}
		}
		// `cd DIR && …` runs in dir and moves the fence's later lines to DIR.
		c := Command{File: file, Line: first, Text: text, Dir: dir, Fence: start}
		classify(&c, false)
		mk.apply(&c)
		cmds = append(cmds, c)
		dir = next
	}
	return cmds
}

// stripComment removes a shell comment: a # at the start or after a blank,
// outside quotes.
func stripComment(s string) string {
	var quote rune
	prev := ' '
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (prev == ' ' || prev == '\t'):
			return strings.TrimRight(s[:i], " \t")
		}
		prev = r
	}
	return strings.TrimRight(s, " \t")
}

// classify sets a command's class from its text: a synopsis has a
// placeholder; inline code with no operand is a mention.
func classify(c *Command, inline bool) {
	body := envRE.ReplaceAllString(c.Text, "")
	if loc := placeholderRE.FindStringIndex(body); loc != nil {
		c.Class, c.Reason = Synopsis, fmt.Sprintf("placeholder %q", strings.TrimSpace(body[loc[0]:loc[1]]))
		return
	}
	if inline && !hasOperand(body) {
		c.Class, c.Reason = Mention, "names no file, package or directory"
	}
}

// hasOperand reports whether a command names what it acts on: a token that
// is a path (".", "./…", has a "/", ends in .yaml/.json) or, for simrun, a
// first word that is a whole command (list, help, -version).
func hasOperand(body string) bool {
	f := strings.Fields(body)
	if len(f) > 1 && f[0] == "simrun" && noOperand[f[1]] {
		return true
	}
	for _, tok := range f[1:] {
		tok = strings.Trim(tok, `'"`)
		if i := strings.IndexByte(tok, '='); i >= 0 && strings.HasPrefix(tok, "-") {
			tok = tok[i+1:]
		}
		if tok == "." || strings.Contains(tok, "/") || strings.HasSuffix(tok, ".yaml") || strings.HasSuffix(tok, ".json") {
			return true
		}
	}
	return false
}

// parse reads one marker's directives, separated by ";": "exit N",
// "skip REASON", "stdout of CMD". skip and stdout of take the rest of the
// marker, semicolons included.
func (m *markers) parse(s string) error {
	for s != "" {
		d, rest, _ := strings.Cut(s, ";")
		d = strings.TrimSpace(d)
		if strings.HasPrefix(d, "skip ") || strings.HasPrefix(d, "stdout of ") {
			d, rest = strings.TrimSpace(s), ""
		}
		s = strings.TrimSpace(rest)
		switch {
		case strings.HasPrefix(d, "exit "):
			n, err := strconv.Atoi(strings.TrimSpace(d[len("exit "):]))
			if err != nil {
				return fmt.Errorf("doccmds marker %q: exit wants a number", d)
			}
			m.exit = &n
		case strings.HasPrefix(d, "skip "):
			m.skip = strings.TrimSpace(d[len("skip "):])
		case strings.HasPrefix(d, "stdout of "):
			m.stdoutOf = strings.TrimSpace(d[len("stdout of "):])
		default:
			return fmt.Errorf("doccmds marker %q: want exit N, skip REASON or stdout of CMD", d)
		}
	}
	return nil
}

// apply gives a command its marker's expectations.
func (m markers) apply(c *Command) {
	if m.exit != nil {
		c.Exit = *m.exit
	}
	if m.skip != "" && c.Class == Run {
		c.Class, c.Reason = Skipped, m.skip
	}
}
