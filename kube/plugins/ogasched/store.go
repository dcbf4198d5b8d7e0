package ogasched

import (
	"github.com/msched/msched/kube/plugins/internal/statestore"
)

// StateLabel marks the ConfigMaps that hold msched learned state.
const StateLabel = statestore.Label

// stateStore keeps one profile's learned state outside the process
// (package internal/statestore, shared with ESDP and OCORP).
type stateStore = statestore.Store

// DefaultStateName returns the name of the ConfigMap holding the learned
// state of plugin in profile when Args.StateName is empty:
// "msched-<plugin>-<profile>", lower-cased, characters a ConfigMap name
// cannot hold replaced by '-', cut to 253 characters.
func DefaultStateName(plugin, profile string) string { return statestore.DefaultName(plugin, profile) }

// claim registers object for plugin in profile; it fails when another
// profile, or another plugin of the profile, of the same scheduler
// already holds it. release undoes it.
func claim(client any, object, profile, plugin string) (release func(), err error) {
	return statestore.Claim(client, object, profile, plugin)
}
