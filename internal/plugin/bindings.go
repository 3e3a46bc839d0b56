package plugin

// Binding is a key paneherd binds in the prefix table.
type Binding struct {
	Option string   // the @paneherd-key-... option naming the key
	Note   string   // shown by list-keys -N
	Args   []string // paneherd's arguments; formats are expanded by run-shell
}

// Bindings are the keys the plugin binds.
var Bindings = []Binding{
	{"key-menu", "paneherd: menu of workers", []string{"menu", "--client", "#{q:client_name}"}},
	{"key-next", "paneherd: jump to the next pane needing attention", []string{"jump", "--client", "#{q:client_name}"}},
}
