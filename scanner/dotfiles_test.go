package scanner

import "testing"

// git's own files in the bank are allowed without configuration; other dotfiles are not.
func TestBankDotfilesAllowed(t *testing.T) {
	for name, want := range map[string]bool{"memory-bank/.gitignore": false, "memory-bank/details/.gitattributes": false, "memory-bank/.env": true, "memory-bank/.gitignore.bak": true} {
		fs, err := CheckFile(File{Path: name, Size: 4, Content: []byte("*.x\n")}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := false
		for _, f := range fs {
			got = got || f.Rule == RuleNonMD
		}
		if got != want {
			t.Errorf("%s: non-md finding %v, want %v", name, got, want)
		}
	}
}
