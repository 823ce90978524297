package shell

import (
	"path"
	"strings"
	"sync"
)

// psSpec is what a cmdlet does with the paths it is given.
type psSpec struct {
	op   string // the cmdlet's full name, reported as Access.Op
	does psDoes
	// pos names the positional parameters in order; writes and reads name the parameters
	// whose paths are written or read; values the other parameters that take a value
	// (every other parameter is a switch).
	pos, writes, reads, values []string
}

type psDoes uint8

const (
	psNothing psDoes = iota // no file: Write-Output, Select-Object, Where-Object …
	psWrites                // writes the paths of its write parameters, reads those of its read ones
	psReads                 // reads the paths of its read parameters
	psRename                // Rename-Item: the path and its new name in the same folder
	psNewItem               // New-Item: -Path joined with -Name
	psCd                    // Set-Location, Push-Location: the working directory
	psEval                  // Invoke-Expression: its string is PowerShell code
)

// psCmdlets maps every cmdlet name and alias the classifier knows, in lower case, onto what
// it does. Parameters are matched as PowerShell matches them: by any unambiguous prefix.
var psCmdlets = sync.OnceValue(func() map[string]psSpec {
	m := map[string]psSpec{}
	add := func(names string, s psSpec) {
		s.op = strings.Fields(names)[0]
		for _, n := range strings.Fields(names) {
			m[strings.ToLower(n)] = s
		}
	}
	content := []string{"filter", "include", "exclude", "credential", "encoding", "stream", "delimiter"}
	add("Set-Content sc Add-Content ac", psSpec{does: psWrites, pos: []string{"path", "value"},
		writes: []string{"path", "literalpath", "pspath", "lp"}, values: append([]string{"value"}, content...)})
	add("Clear-Content clc", psSpec{does: psWrites, pos: []string{"path"}, writes: []string{"path", "literalpath", "pspath", "lp"}, values: content})
	add("Out-File", psSpec{does: psWrites, pos: []string{"filepath", "encoding"}, writes: []string{"filepath", "literalpath", "path", "pspath", "lp"},
		values: []string{"encoding", "width", "inputobject"}})
	add("Tee-Object tee", psSpec{does: psWrites, pos: []string{"filepath"}, writes: []string{"filepath", "literalpath", "path", "pspath"},
		values: []string{"variable", "inputobject", "encoding"}})
	add("Export-Csv epcsv Export-Clixml Start-Transcript Set-Acl", psSpec{does: psWrites, pos: []string{"path"},
		writes: []string{"path", "literalpath", "pspath", "lp", "outputdirectory"},
		values: []string{"inputobject", "delimiter", "encoding", "depth", "aclobject", "usequotes", "quotefields"}})
	add("Remove-Item rm del ri erase rd rmdir", psSpec{does: psWrites, pos: []string{"path"}, writes: []string{"path", "literalpath", "pspath", "lp"}, values: content})
	add("Move-Item mv move mi", psSpec{does: psWrites, pos: []string{"path", "destination"}, writes: []string{"path", "literalpath", "pspath", "lp", "destination"}, values: content})
	add("Copy-Item cp copy cpi", psSpec{does: psWrites, pos: []string{"path", "destination"}, reads: []string{"path", "literalpath", "pspath", "lp"},
		writes: []string{"destination"}, values: append([]string{"tosession", "fromsession"}, content...)})
	add("Rename-Item ren rni", psSpec{does: psRename, pos: []string{"path", "newname"}, writes: []string{"path", "literalpath", "pspath", "lp"},
		values: []string{"newname", "credential"}})
	add("New-Item ni mkdir md", psSpec{does: psNewItem, pos: []string{"path"}, writes: []string{"path"},
		values: []string{"name", "itemtype", "type", "value", "target", "credential"}})
	add("Expand-Archive Compress-Archive", psSpec{does: psWrites, pos: []string{"path", "destinationpath"}, reads: []string{"path", "literalpath"},
		writes: []string{"destinationpath"}, values: []string{"compressionlevel"}})
	add("Invoke-WebRequest iwr Invoke-RestMethod irm", psSpec{does: psWrites, pos: []string{"uri"}, writes: []string{"outfile"},
		values: []string{"uri", "method", "body", "headers", "contenttype", "infile", "useragent", "timeoutsec", "credential", "session", "websession"}})
	add("Get-Content gc cat type", psSpec{does: psReads, pos: []string{"path"}, reads: []string{"path", "literalpath", "pspath", "lp"},
		values: append([]string{"totalcount", "head", "first", "tail", "last", "readcount"}, content...)})
	add("Select-String sls", psSpec{does: psReads, pos: []string{"pattern", "path"}, reads: []string{"path", "literalpath", "pspath", "lp"},
		values: []string{"pattern", "context", "encoding", "include", "exclude", "culture", "inputobject"}})
	add("Get-ChildItem gci ls dir Get-Item gi Test-Path Resolve-Path rvpa Get-FileHash Import-Csv ipcsv Import-Clixml Get-Acl Format-Hex fhx Get-ItemProperty gp",
		psSpec{does: psReads, pos: []string{"path", "filter"}, reads: []string{"path", "literalpath", "pspath", "lp"},
			values: []string{"filter", "include", "exclude", "depth", "attributes", "pathtype", "algorithm", "delimiter", "encoding", "name", "count"}})
	add("Set-Location cd sl chdir Push-Location pushd", psSpec{does: psCd, pos: []string{"path"}, values: []string{"path", "literalpath", "stackname"}})
	add("Invoke-Expression iex", psSpec{does: psEval, pos: []string{"command"}, values: []string{"command"}})
	add("Write-Output echo write Write-Host Write-Error Write-Warning Write-Verbose Write-Debug Write-Information "+
		"Select-Object select Where-Object where ? ForEach-Object foreach % Sort-Object sort Group-Object group Measure-Object measure "+
		"Format-Table ft Format-List fl Format-Wide fw Out-String Out-Host oh Out-Null Out-Default ConvertTo-Json ConvertFrom-Json "+
		"ConvertTo-Csv ConvertFrom-Csv Get-Location gl pwd Pop-Location popd Get-Date Get-Process ps gps Get-Command gcm Get-Help help "+
		"Get-Member gm Join-Path Split-Path Test-Connection Start-Sleep sleep Get-Variable Set-Variable gv sv Get-Alias gal Clear-Host cls clear "+
		"Get-Module Import-Module ipmo Get-Service gsv Get-History h history Write-Progress Get-Random Get-Unique New-Guid Compare-Object compare diff "+
		"Select-Xml Get-Culture Get-Host Get-PSDrive gdr Get-Clipboard Get-ExecutionPolicy",
		psSpec{does: psNothing, values: []string{"path", "filepath", "literalpath", "property", "first", "last", "skip", "expandproperty", "filterscript", "process",
			"begin", "end", "inputobject", "object", "foregroundcolor", "backgroundcolor", "separator", "message", "name", "id", "format", "depth",
			"childpath", "parent", "leaf", "seconds", "milliseconds", "stackname", "referenceobject", "differenceobject", "xpath", "content", "value", "scope"}})
	return m
})

// psParam matches an option word against names by PowerShell's rule: the full name or any
// unambiguous prefix of one. ambiguous prefixes report every name they match.
func psParam(opt string, names ...[]string) []string {
	var out []string
	for _, list := range names {
		for _, n := range list {
			if n == opt {
				return []string{n}
			}
			if strings.HasPrefix(n, opt) {
				out = append(out, n)
			}
		}
	}
	return out
}

// psPathParams are the spellings of a cmdlet's one path slot.
var psPathParams = map[string]bool{"path": true, "literalpath": true, "pspath": true, "lp": true, "filepath": true}

// psBound is one parameter's values: the words of one argument (an array a, b is one).
type psBound struct {
	param string
	words []psTok
}

// cmdlet judges one call of a cmdlet of the tables.
func (p *psWalker) cmdlet(spec psSpec, args []psTok, e *env, depth int) {
	bound := spec.bind(args)
	op := strings.ToLower(spec.op)
	switch spec.does {
	case psNothing:
		// Write-Output memory-bank/x only prints the name
	case psReads:
		p.cmdReads(spec, bound, op, e)
	case psWrites:
		p.cmdWrites(spec, bound, op, e)
	case psRename:
		p.cmdRename(spec, bound, op, e)
	case psNewItem:
		p.cmdNewItem(bound, op, e)
	case psCd:
		cmdCd(bound, e)
	case psEval:
		p.cmdEval(bound, e, depth)
	}
}

// bind binds named arguments first, then the positional ones to the positions no name took;
// commas join words into one argument.
func (spec psSpec) bind(args []psTok) []psBound {
	var bound []psBound
	var positional [][]psTok
	named := map[string]bool{}
	for i := 0; i < len(args); i++ {
		t := args[i]
		if t.kind != psWord {
			continue
		}
		if !psIsParam(t) {
			var ws []psTok
			i, ws = psArgument(args, i)
			positional = append(positional, ws)
			continue
		}
		var b psBound
		var ok bool
		i, b, ok = spec.bindNamed(args, i, named)
		if ok {
			bound = append(bound, b)
		}
	}
	return append(bound, spec.bindPositional(positional, named)...)
}

// psIsParam reports a word that names a parameter: -Path, -Path:value (not -1, not '-x').
func psIsParam(t psTok) bool {
	return !t.quoted && t.exact && len(t.s) > 1 && t.s[0] == '-' && !isNumber(t.s)
}

// bindNamed binds the parameter named by args[i] and marks it in named; it returns the index
// of the argument's last word, and ok when the parameter takes a value.
func (spec psSpec) bindNamed(args []psTok, i int, named map[string]bool) (int, psBound, bool) {
	t := args[i]
	name, _, hasVal := strings.Cut(strings.ToLower(t.s[1:]), ":")
	cands := psParam(name, spec.pos, spec.writes, spec.reads, spec.values)
	param := spec.pick(name, cands)
	named[param] = true
	if psPathParams[param] {
		named["path"], named["filepath"] = true, true // one slot, spelt several ways
	}
	if hasVal {
		k := strings.IndexByte(t.s, ':') + 1
		return i, psBound{param, []psTok{{kind: psWord, s: t.s[k:], exact: true, pos: t.pos + k, end: t.end}}}, true
	}
	if len(cands) > 0 && spec.takes(param) {
		j, ws := psArgument(args, i+1)
		return j, psBound{param, ws}, true
	}
	return i, psBound{}, false
}

// pick chooses the parameter a prefix names among its candidates.
func (spec psSpec) pick(name string, cands []string) string {
	if len(cands) == 0 {
		return name
	}
	param := cands[0]
	for _, c := range cands {
		if slicesHas(spec.writes, c) {
			param = c // an ambiguous prefix that may name a written path is one
		}
	}
	return param
}

// takes reports a parameter that takes a value (every other one is a switch).
func (spec psSpec) takes(param string) bool {
	return slicesHas(spec.writes, param) || slicesHas(spec.reads, param) || slicesHas(spec.values, param) || slicesHas(spec.pos, param)
}

// bindPositional binds the positional arguments to the positions no name took.
func (spec psSpec) bindPositional(positional [][]psTok, named map[string]bool) []psBound {
	var bound []psBound
	slot := 0
	for _, ws := range positional {
		for slot < len(spec.pos) && named[spec.pos[slot]] {
			slot++
		}
		param := ""
		switch {
		case slot < len(spec.pos):
			param = spec.pos[slot]
			slot++
		case spec.does == psWrites && len(spec.pos) == 1 && spec.pos[0] == "path":
			param = "path" // Remove-Item a b: more paths
		}
		bound = append(bound, psBound{param, ws})
	}
	return bound
}

// cmdReads judges a cmdlet that reads the paths of its read parameters.
func (p *psWalker) cmdReads(spec psSpec, bound []psBound, op string, e *env) {
	for _, b := range bound {
		if slicesHas(spec.reads, b.param) {
			for _, t := range b.words {
				p.read(t, op, e)
			}
		}
	}
}

// cmdWrites judges a cmdlet that writes the paths of its write parameters and reads those of
// its read ones.
func (p *psWalker) cmdWrites(spec psSpec, bound []psBound, op string, e *env) {
	w := &p.w
	wrote := false
	for _, b := range bound {
		switch {
		case slicesHas(spec.writes, b.param):
			for _, t := range b.words {
				p.write(t, op, e)
				wrote = true
			}
		case slicesHas(spec.reads, b.param):
			for _, t := range b.words {
				p.read(t, op, e)
			}
		}
	}
	if !wrote && spec.writes[0] != "outfile" && spec.writes[0] != "destinationpath" {
		w.unknownWrite() // Set-Content with its path piped in, Clear-Content without one
	}
	if op == "copy-item" && !psHasParam(bound, "destination") {
		w.res.Write = true // Copy-Item x: to the current directory
		if d := e.dirOrEmpty(); d != "" {
			w.addWrite(Access{Path: d + "/", Op: op, Unknown: true})
		}
	}
}

// cmdRename judges Rename-Item: the path and its new name in the same folder.
func (p *psWalker) cmdRename(spec psSpec, bound []psBound, op string, e *env) {
	var from psTok
	for _, b := range bound {
		if slicesHas(spec.writes, b.param) && len(b.words) > 0 {
			from = b.words[0]
			p.write(from, op, e)
		}
	}
	for _, b := range bound {
		if b.param == "newname" {
			for _, t := range b.words {
				to := t
				if from.exact && t.exact && !strings.ContainsAny(t.s, `/\`) {
					dir := path.Dir(strings.ReplaceAll(psPath(from.s), `\`, "/"))
					to.s = dir + "/" + t.s
				}
				p.write(to, op, e)
			}
		}
	}
	if from.s == "" {
		p.w.unknownWrite()
	}
}

// cmdNewItem judges New-Item: -Path joined with -Name.
func (p *psWalker) cmdNewItem(bound []psBound, op string, e *env) {
	var dirs, names []psTok
	for _, b := range bound {
		switch b.param {
		case "path":
			dirs = append(dirs, b.words...)
		case "name":
			names = append(names, b.words...)
		}
	}
	if len(dirs) == 0 {
		dirs = []psTok{{kind: psWord, s: ".", exact: true}}
	}
	for _, d := range dirs {
		if len(names) == 0 {
			p.write(d, op, e)
		}
		for _, n := range names {
			j := n
			j.s, j.exact = strings.TrimSuffix(strings.ReplaceAll(d.s, `\`, "/"), "/")+"/"+n.s, d.exact && n.exact
			p.write(j, op, e)
		}
	}
}

// cmdCd follows Set-Location and Push-Location: the working directory.
func cmdCd(bound []psBound, e *env) {
	for _, b := range bound {
		if b.param == "path" || b.param == "literalpath" {
			if len(b.words) == 1 && b.words[0].exact {
				e.cd(arg{s: psPath(b.words[0].s), exact: true})
			} else {
				e.known = false
			}
		}
	}
}

// cmdEval judges Invoke-Expression: its string is PowerShell code.
func (p *psWalker) cmdEval(bound []psBound, e *env, depth int) {
	for _, b := range bound {
		for _, t := range b.words {
			if !t.exact {
				p.w.unknownWrite()
			}
			p.line(t.s, e, depth+1)
		}
	}
}

// psArgument reads one argument starting at args[i]: a word, or an array of words joined by
// commas. It returns the index of its last word.
func psArgument(args []psTok, i int) (int, []psTok) {
	if i >= len(args) || args[i].kind != psWord {
		return i - 1, nil
	}
	ws := []psTok{args[i]}
	for i+2 < len(args) && args[i+1].kind == psComma && args[i+2].kind == psWord {
		ws = append(ws, args[i+2])
		i += 2
	}
	return i, ws
}

func psHasParam(bound []psBound, param string) bool {
	for _, b := range bound {
		if b.param == param {
			return true
		}
	}
	return false
}

func slicesHas(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
