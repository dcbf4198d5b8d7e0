package trace

// Deprecated names, kept for one release (v0.2.x); removed in v0.3.0.

// OGASchedOptions is the former name of OGASchedSettings.
//
// Deprecated: use OGASchedSettings.
type OGASchedOptions = OGASchedSettings

// OnSocMaxOptions is the former name of OnSocMaxSettings.
//
// Deprecated: use OnSocMaxSettings.
type OnSocMaxOptions = OnSocMaxSettings

// ESDPOptions is the former name of ESDPSettings.
//
// Deprecated: use ESDPSettings.
type ESDPOptions = ESDPSettings

// OCORPOptions is the former name of OCORPSettings.
//
// Deprecated: use OCORPSettings.
type OCORPOptions = OCORPSettings

// DLRMGangOptions is the former name of DLRMGangSettings (it was added
// after the Options→Settings rename).
//
// Deprecated: use DLRMGangSettings.
type DLRMGangOptions = DLRMGangSettings
