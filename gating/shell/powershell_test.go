package shell

import (
	"reflect"
	"strings"
	"testing"
)

// psCases are PowerShell command lines with what they write and read, in a session whose
// folder is C:/w/repo. "?" marks a write whose target is only a hint; flags as in tc.
var psCases = []tc{
	// the write cmdlets and their aliases, by position, name and abbreviation
	{"Set-Content positional", "Set-Content memory-bank/a.json 'x'", w("C:/w/repo/memory-bank/a.json"), nil, "W"},
	{"sc alias", "sc memory-bank\\a.json x", w("C:/w/repo/memory-bank/a.json"), nil, "W"},
	{"Set-Content -Path after -Value", "Set-Content -Value 'x' -Path 'memory-bank\\a.json'", w("C:/w/repo/memory-bank/a.json"), nil, "W"},
	{"-LiteralPath", `Set-Content -LiteralPath "C:\w\repo\memory-bank\MEMORY.md" -Value x`, w("C:/w/repo/memory-bank/MEMORY.md"), nil, "W"},
	{"abbreviated -Lit", `Set-Content -Lit memory-bank\a.md x`, w("C:/w/repo/memory-bank/a.md"), nil, "W"},
	{"-Path: form", `Add-Content -Path:memory-bank\a.md -Value x`, w("C:/w/repo/memory-bank/a.md"), nil, "W"},
	{"ac alias with encoding", `ac -Encoding utf8 memory-bank\a.md x`, w("C:/w/repo/memory-bank/a.md"), nil, "W"},
	{"Out-File in a pipeline", `Get-Date | Out-File C:\w\repo\memory-bank\d.txt`, w("C:/w/repo/memory-bank/d.txt"), nil, "W"},
	{"Set-Content in a pipeline", `'x' | Set-Content memory-bank\a.json`, w("C:/w/repo/memory-bank/a.json"), nil, "W"},
	{"Tee-Object", `Get-Date | tee memory-bank\t.log`, w("C:/w/repo/memory-bank/t.log"), nil, "W"},
	{"New-Item", `New-Item -ItemType File memory-bank\n.json`, w("C:/w/repo/memory-bank/n.json"), nil, "W"},
	{"ni with -Name", `ni -Path memory-bank -Name n.json -Value x`, w("C:/w/repo/memory-bank/n.json"), nil, "W"},
	{"mkdir", `mkdir memory-bank\sub`, w("C:/w/repo/memory-bank/sub"), nil, "W"},
	{"Remove-Item -Recurse", `Remove-Item -Recurse -Force memory-bank`, w("C:/w/repo/memory-bank"), nil, "W"},
	{"rm del ri erase rd", `rm memory-bank\a.md; del memory-bank\b.md; ri memory-bank\c.md; erase memory-bank\d.md; rd memory-bank\e`,
		w("C:/w/repo/memory-bank/a.md", "C:/w/repo/memory-bank/b.md", "C:/w/repo/memory-bank/c.md", "C:/w/repo/memory-bank/d.md", "C:/w/repo/memory-bank/e"), nil, "W"},
	{"Remove-Item array", `Remove-Item memory-bank\a.md, memory-bank\b.md`, w("C:/w/repo/memory-bank/a.md", "C:/w/repo/memory-bank/b.md"), nil, "W"},
	{"Move-Item", `Move-Item memory-bank\a.md docs\a.md`, w("C:/w/repo/memory-bank/a.md", "C:/w/repo/docs/a.md"), nil, "W"},
	{"mv -Destination", `mv -Destination memory-bank\x.json -Path x.json`, w("C:/w/repo/memory-bank/x.json", "C:/w/repo/x.json"), nil, "W"},
	{"Copy-Item into the bank", `Copy-Item .env memory-bank\env.md`, w("C:/w/repo/memory-bank/env.md"), w("C:/w/repo/.env"), "W"},
	{"cp out of the bank", `cp memory-bank\MEMORY.md C:\tmp\m.md`, w("C:/tmp/m.md"), w("C:/w/repo/memory-bank/MEMORY.md"), "W"},
	{"Rename-Item", `Rename-Item memory-bank\a.md b.json`, w("C:/w/repo/memory-bank/a.md", "C:/w/repo/memory-bank/b.json"), nil, "W"},
	{"ren -NewName", `ren -NewName b.json -Path memory-bank\a.md`, w("C:/w/repo/memory-bank/a.md", "C:/w/repo/memory-bank/b.json"), nil, "W"},
	{"Clear-Content", `Clear-Content memory-bank\MEMORY.md`, w("C:/w/repo/memory-bank/MEMORY.md"), nil, "W"},
	{"clc", `clc memory-bank\MEMORY.md`, w("C:/w/repo/memory-bank/MEMORY.md"), nil, "W"},
	{"module-qualified", `Microsoft.PowerShell.Management\Set-Content memory-bank\a.json x`, w("C:/w/repo/memory-bank/a.json"), nil, "W"},
	{"provider path", `Set-Content FileSystem::C:\w\repo\memory-bank\a.json x`, w("C:/w/repo/memory-bank/a.json"), nil, "W"},
	{"case of the cmdlet", `SET-CONTENT memory-bank\a.json x`, w("C:/w/repo/memory-bank/a.json"), nil, "W"},
	// redirections
	{"redirect", `Get-Date > memory-bank\d.txt`, w("C:/w/repo/memory-bank/d.txt"), nil, "W"},
	{"redirect append", `"x" >> memory-bank\MEMORY.md`, w("C:/w/repo/memory-bank/MEMORY.md"), nil, "W"},
	{"redirect all streams", `Get-Date *> memory-bank\d.txt`, w("C:/w/repo/memory-bank/d.txt"), nil, "W"},
	{"redirect errors", `Get-Item x 2> memory-bank\e.txt`, w("C:/w/repo/memory-bank/e.txt"), w("C:/w/repo/x"), "W"},
	{"merge is no file", `Get-Date 2>&1`, nil, nil, ""},
	{"null is no file", `Get-Date > $null`, nil, nil, ""},
	// .NET file calls
	{"IO.File WriteAllText", `[IO.File]::WriteAllText('C:\w\repo\memory-bank\a.json', 'x')`, w("C:/w/repo/memory-bank/a.json"), nil, "W"},
	{"System.IO.File AppendAllText", `[System.IO.File]::AppendAllText("memory-bank\MEMORY.md", "x")`, w("C:/w/repo/memory-bank/MEMORY.md"), nil, "W"},
	{"File Move", `[System.IO.File]::Move('memory-bank\a.md', 'b.md')`, w("C:/w/repo/memory-bank/a.md", "C:/w/repo/b.md"), nil, "W"},
	{"Directory Delete", `[IO.Directory]::Delete('memory-bank', $true)`, w("C:/w/repo/memory-bank"), nil, "W"},
	{"StreamWriter new", `$s = [IO.StreamWriter]::new('memory-bank\a.json')`, w("C:/w/repo/memory-bank/a.json"), nil, "W"},
	{"File ReadAllText is a read", `[IO.File]::ReadAllText('memory-bank\MEMORY.md')`, nil, w("C:/w/repo/memory-bank/MEMORY.md"), ""},
	{"instance delete", `(Get-Item memory-bank\a.md).Delete()`, nil, w("C:/w/repo/memory-bank/a.md"), "WU"},
	// reads
	{"Get-Content", `Get-Content memory-bank\MEMORY.md`, nil, w("C:/w/repo/memory-bank/MEMORY.md"), ""},
	{"gc cat type", `gc memory-bank\a.md; cat memory-bank\b.md; type memory-bank\c.md`, nil,
		w("C:/w/repo/memory-bank/a.md", "C:/w/repo/memory-bank/b.md", "C:/w/repo/memory-bank/c.md"), ""},
	{"Get-Content -Tail", `Get-Content -Tail 5 -LiteralPath memory-bank\details\progress.md`, nil, w("C:/w/repo/memory-bank/details/progress.md"), ""},
	{"Select-String", `Select-String -Pattern TODO -Path memory-bank\details\*.md`, nil, w("C:/w/repo/memory-bank/details/*.md"), ""},
	{"sls positional", `sls TODO memory-bank\MEMORY.md`, nil, w("C:/w/repo/memory-bank/MEMORY.md"), ""},
	{"read piped to a command", `Get-Content memory-bank\MEMORY.md | Select-Object -First 5`, nil, w("C:/w/repo/memory-bank/MEMORY.md"), ""},
	{"read into a variable", `$m = Get-Content memory-bank\MEMORY.md -Raw`, nil, w("C:/w/repo/memory-bank/MEMORY.md"), ""},
	{"read then write elsewhere", `Get-Content memory-bank\MEMORY.md | Set-Content C:\tmp\copy.md`, w("C:/tmp/copy.md"), w("C:/w/repo/memory-bank/MEMORY.md"), "W"},
	{"echo names only", `Write-Output memory-bank\a.json`, nil, nil, ""},
	// the working directory
	{"Set-Location", `Set-Location memory-bank; Set-Content a.json x`, w("C:/w/repo/memory-bank/a.json"), nil, "W"},
	{"cd then write", `cd C:\w\repo\memory-bank; "x" > a.json`, w("C:/w/repo/memory-bank/a.json"), nil, "W"},
	// code inside code
	{"script block", `1..3 | ForEach-Object { Set-Content "memory-bank\n$_.json" x }`, w("C:/w/repo/memory-bank/n?"), nil, "W"},
	{"subexpression in a string", `Write-Output "$(Remove-Item memory-bank\a.md)"`, w("C:/w/repo/memory-bank/a.md"), nil, "W"},
	{"Invoke-Expression", `Invoke-Expression 'Set-Content memory-bank\a.json x'`, w("C:/w/repo/memory-bank/a.json"), nil, "W"},
	{"pwsh -Command", `pwsh -NoProfile -Command "Remove-Item memory-bank\a.md"`, w("C:/w/repo/memory-bank/a.md"), nil, "W"},
	{"encoded command", `powershell -EncodedCommand SQBFAFgA`, nil, nil, "WU"},
	// unknown and native commands are judged as bash judges them
	{"git mv", `git mv memory-bank\a.md b.md`, w("C:/w/repo/memory-bank/a.md", "C:/w/repo/b.md"), nil, "W"},
	{"unknown tool handed the bank", `some-tool.exe --out memory-bank\x.json`, w("C:/w/repo/memory-bank/x.json"), nil, "W"},
	{"git status", `git status`, nil, nil, ""},
	{"variable target", `Set-Content $p x`, nil, nil, "WU"},
	{"variable under the bank", `Set-Content "memory-bank\$n" x`, w("C:/w/repo/memory-bank/?"), nil, "W"},
	{"unterminated", `Set-Content 'memory-bank\a.json`, nil, nil, "WUE"},
}

func TestClassifyPowerShell(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range psCases {
		if seen[c.name] {
			t.Fatalf("duplicate case name %q", c.name)
		}
		seen[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			r := ClassifyPowerShell(c.cmd, "C:/w/repo")
			if got := format(r.Writes); !reflect.DeepEqual(got, c.writes) {
				t.Errorf("writes = %q, want %q", got, c.writes)
			}
			if got := format(r.Reads); !reflect.DeepEqual(got, c.reads) {
				t.Errorf("reads = %q, want %q", got, c.reads)
			}
			if got, want := strings.ReplaceAll(flags(r), "I", ""), sortFlags(c.flags); got != want {
				t.Errorf("flags = %q, want %q (%+v)", got, want, r)
			}
		})
	}
}

// FuzzClassifyPowerShell: any input gives an answer without a panic; a write reported with a
// path sets Write; a parse error is an unknown write.
func FuzzClassifyPowerShell(f *testing.F) {
	for _, c := range psCases {
		f.Add(c.cmd)
	}
	f.Add("@'\nx\n'@ | Set-Content memory-bank\\a.json")
	f.Add("[List[string]]::new() ; <# c #> `\n gc a")
	f.Fuzz(func(t *testing.T, cmd string) {
		r := classifyPS(cmd, "C:/w/repo")
		if len(r.Writes) > 0 && !r.Write {
			t.Fatalf("writes without Write: %+v", r)
		}
		if r.ParseError != "" && !(r.Write && r.Unknown) {
			t.Fatalf("parse error without an unknown write: %+v", r)
		}
		for _, a := range append(r.Writes, r.Reads...) {
			if a.Path == "" {
				t.Fatalf("empty path in %+v", r)
			}
		}
	})
}
