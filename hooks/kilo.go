package hooks

// Kilo Code has no hooks of its own: it keeps OpenCode's plugin API, loading
// {plugin,plugins}/*.{ts,js} from .kilo/ and .kilocode/ (project, home) and from
// $XDG_CONFIG_HOME/kilo/. So mbguard serves it with OpenCode's plugin asset (opencode.go),
// installed with const HOST = "kilo"; decisions come from `mbguard serve --stdio` as under
// OpenCode (docs/hosts/kilo.md).

var kiloHost = pluginHost{name: "kilo", title: "Kilo Code", dir: ".kilo", config: "kilo"}

// InstallKilo writes the plugin for Kilo Code into .kilo/plugin/ (or with Global
// $XDG_CONFIG_HOME/kilo/plugin/), the way InstallOpenCode does for OpenCode; uninstall removes
// only mbguard's file.
func InstallKilo(o InstallOptions) ([]Change, error) { return kiloHost.install(o) }
