package remote_test

// The engine process of these tests (TestMain) serves with gitleaks' detector.
import _ "github.com/mbguard/mbguard/scanner/engine"
