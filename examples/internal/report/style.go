package report

import (
	"hash/fnv"
	"image/color"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Line widths: the paper's algorithm is drawn thicker than everything else.
const (
	primaryWidth  = 2.5
	baselineWidth = 1.5
	variantWidth  = 1.8
)

// dashes are the dash patterns, in points; index 0 is solid.
var dashes = [][]float64{nil, {6, 3}, {2, 2}, {8, 3, 2, 3}, {12, 4}, {4, 2, 1, 2}}

func rgb(v uint32) color.RGBA {
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 0xff}
}

// Colours: black for the paper's algorithm, grey for references, and the
// Okabe–Ito colour-blind-safe palette (without its yellow, which does not
// show on white) for the baselines, then a few more distinct colours.
var (
	black     = rgb(0x000000)
	grey      = rgb(0x555555)
	blue      = rgb(0x0072B2)
	orange    = rgb(0xE69F00)
	green     = rgb(0x009E73)
	vermilion = rgb(0xD55E00)
	purple    = rgb(0xCC79A7)
	sky       = rgb(0x56B4E9)
	brown     = rgb(0x8C564B)
	wine      = rgb(0x882255)
	olive     = rgb(0x999933)
	indigo    = rgb(0x332288)
	teal      = rgb(0x44AA99)
)

// extra is the palette for names not in the table, picked by a hash of the
// name, and the spare colours a figure gives a line whose colour another
// policy of the same figure already has (Tableau 10 without grey).
var extra = []color.RGBA{
	rgb(0x1F77B4), rgb(0xFF7F0E), rgb(0x2CA02C), rgb(0xD62728), rgb(0x9467BD),
	rgb(0x8C564B), rgb(0xE377C2), rgb(0xBCBD22), rgb(0x17BECF),
}

// spare is the order in which a figure hands out colours to lines whose own
// colour is taken: the palette's colours first, then more of Paul Tol's
// (rose, forest, magenta, sand, dark brown), then Tableau's, several of
// which are close to a palette colour (their blue to Okabe–Ito's).
var spare = append([]color.RGBA{blue, orange, green, vermilion, purple, sky, brown, wine, olive, indigo, teal,
	rgb(0xCC6677), rgb(0x117733), rgb(0xAA4499), rgb(0xDDCC77), rgb(0x661100)}, extra...)

type known struct {
	color   color.RGBA
	dash    int
	primary bool // one of the papers' algorithms
	ref     bool // a comparator drawn like a Reference
}

// Families lists, for each family of the library, every policy name its
// figures draw: the paper's algorithm first, then its variants and the
// baselines (the names their Name methods return, and the names the
// examples give their readings). The palette gives every name a colour,
// distinct within a family; the paper's algorithm is black. A test checks
// both, so a new policy is added here with its colour in table.
var Families = map[string][]string{
	"ogasched":      {"OGASched", "OGASched(eta0=25)", "OGASched(paper-proj)", "DRF", "FAIRNESS", "BINPACKING", "SPREADING", "BINPACKING-pod", "SPREADING-pod"},
	"onsocmax":      {"OnSocMax", "OnSocMax-ALM", "OnSocMax-NP", "MAX-FIRST", "EQUAL-SHARE"},
	"esdp":          {"ESDP", "ESDP-glog", "ESDP-STZ", "HSWF", "HSWF-channel", "LCF", "LWTF", "CUCB", "TS"},
	"ocorp":         {"OCORP", "OCORP-fill", "OCORP+", "OCORP+M", "OCORP+M-fill", "SRPT", "SVF", "SRVF", "SRF", "Tetris"},
	"ogasched-gang": {"OGASched-gang", "OGASched-gang(literal)", "DRF-gang", "FAIRNESS-gang", "BINPACKING-gang", "SPREADING-gang", "FIRSTFIT-gang"},
	"esdp-gang":     {"ESDP-gang", "HSWF-gang", "LCF-gang", "LWTF-gang", "FIRSTFIT-gang"},
}

// table fixes the style of every policy name the families use, so a policy
// looks the same in every figure. Colours repeat across families, never
// within one (see Families); a figure that mixes families still gives each
// policy its own colour (see Plot.Save).
var table = map[string]known{
	// The four papers' algorithms, their gang extensions and OCORP's own
	// variants.
	"OGASched":      {color: black, primary: true},
	"OnSocMax":      {color: black, primary: true},
	"ESDP":          {color: black, primary: true},
	"OCORP":         {color: black, primary: true},
	"OGASched-gang": {color: black, primary: true},
	"ESDP-gang":     {color: black, primary: true},
	"OCORP+":        {color: purple, primary: true},
	"OCORP+M":       {color: wine, primary: true},
	// Variants the examples run beside the algorithms: not black, which
	// means the algorithm as published.
	"OGASched(eta0=25)":      {color: sky, dash: 1},
	"OGASched(paper-proj)":   {color: wine, dash: 2},
	"OGASched-gang(literal)": {color: sky, dash: 1},
	"OnSocMax-ALM":           {color: sky, dash: 1},
	"OnSocMax-NP":            {color: purple, dash: 2},
	"ESDP-glog":              {color: indigo, dash: 1},
	"ESDP-STZ":               {color: olive, dash: 2},
	"OCORP-fill":             {color: sky, dash: 1},
	"OCORP+M-fill":           {color: teal, dash: 1},
	// OGASched's baselines.
	"DRF":            {color: blue},
	"FAIRNESS":       {color: orange, dash: 1},
	"BINPACKING":     {color: green, dash: 2},
	"SPREADING":      {color: vermilion, dash: 3},
	"BINPACKING-pod": {color: brown, dash: 4},
	"SPREADING-pod":  {color: purple, dash: 5},
	// Their gang versions.
	"DRF-gang":        {color: blue},
	"FAIRNESS-gang":   {color: orange, dash: 1},
	"BINPACKING-gang": {color: green, dash: 2},
	"SPREADING-gang":  {color: vermilion, dash: 3},
	"FIRSTFIT-gang":   {color: brown, dash: 4},
	// OnSocMax's.
	"MAX-FIRST":   {color: blue},
	"EQUAL-SHARE": {color: orange, dash: 1},
	"OPT":         {color: grey, dash: 2, ref: true},
	// ESDP's, and their gang versions.
	"HSWF":         {color: blue},
	"HSWF-channel": {color: teal, dash: 5},
	"LCF":          {color: orange, dash: 1},
	"LWTF":         {color: green, dash: 2},
	"CUCB":         {color: vermilion, dash: 3},
	"TS":           {color: purple, dash: 4},
	"Thompson":     {color: purple, dash: 4},
	"HSWF-gang":    {color: blue},
	"LCF-gang":     {color: orange, dash: 1},
	"LWTF-gang":    {color: green, dash: 2},
	// OCORP's.
	"SRPT":   {color: blue},
	"SVF":    {color: orange, dash: 1},
	"SRVF":   {color: green, dash: 2},
	"SRF":    {color: vermilion, dash: 3},
	"Tetris": {color: brown, dash: 4},
}

// styleBase is the part of name its style depends on: B for a ratio "A/B"
// whose A is one of the papers' algorithms ("OGASched/DRF" is drawn as DRF),
// name otherwise.
func styleBase(name string) string {
	if i := strings.LastIndexByte(name, '/'); i > 0 {
		if k := prefixKey(name[:i]); k != "" && table[k].primary {
			return name[i+1:]
		}
	}
	return name
}

// prefixKey is the longest table name that starts name ("OCORP+(a=10)" →
// "OCORP+", "OPT (offline)" → "OPT"), "" if none.
func prefixKey(name string) string {
	best := ""
	for k := range table {
		if len(k) > len(best) && strings.HasPrefix(name, k) {
			best = k
		}
	}
	return best
}

func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// style is a line style before the per-plot conflict resolution: a colour,
// an index into dashes and a width.
type style struct {
	color   color.RGBA
	dash    int
	width   float64
	primary bool
}

func (s style) line() draw.LineStyle {
	ls := draw.LineStyle{Color: s.color, Width: vg.Points(s.width)}
	for _, d := range dashes[s.dash] {
		ls.Dashes = append(ls.Dashes, vg.Points(d))
	}
	return ls
}

// styleOf is the style of a line named name. The name is read as a policy
// and an optional measure or setting: its first space-separated field
// that starts with a table name is the policy, the other fields are the
// measure ("OCORP-fill exact", "ESDP g=ln(t+1)", "OPT (offline)", "2-D
// SRPT"); without such a field the first is the policy. A ratio
// "OGASched/DRF" is read as DRF.
//
//   - A table policy: its colour and dash; the papers' algorithms solid,
//     black and thick.
//   - A variant, a policy that starts with a table name ("OCORP+(a=10)",
//     "OCORP-fill", "OGASched(paper-proj)"): never solid, its dash picked
//     by a hash of the policy; the colour of the table name, except that
//     variants of the black papers' algorithms get a colour of their own
//     (hashed), so that black still means the algorithm as published.
//   - Any other policy: colour and dash picked by a hash of the policy.
//   - A measure changes only the dash (hashed, never solid), so "X exact"
//     and "X fractional" share X's colour, and "1-D X" and "2-D X" too.
func styleOf(name string) style {
	head, tail := policyField(styleBase(name))
	k := prefixKey(head)
	var s style
	switch e := table[k]; {
	case k == "":
		h := hash(head)
		s = style{color: extra[h%uint32(len(extra))], dash: int(h/uint32(len(extra))) % len(dashes), width: baselineWidth}
	case head != k:
		h := hash(head)
		s = style{color: e.color, dash: 1 + int(h%uint32(len(dashes)-1)), width: variantWidth}
		if e.color == black {
			s.color = extra[(h/uint32(len(dashes)))%uint32(len(extra))]
		}
	case e.primary:
		s = style{color: e.color, width: primaryWidth, primary: true}
	default:
		s = style{color: e.color, dash: e.dash, width: baselineWidth}
	}
	if tail != "" && !s.primary { // the paper's algorithm stays solid
		s.dash = 1 + int(hash(tail)%uint32(len(dashes)-1))
	}
	return s
}

// policyField splits name into its policy field and the rest (see styleOf).
func policyField(name string) (policy, rest string) {
	fs := strings.Fields(name)
	if len(fs) == 0 {
		return name, ""
	}
	at := 0
	for i, f := range fs {
		if prefixKey(f) != "" {
			at = i
			break
		}
	}
	return fs[at], strings.Join(append(fs[:at:at], fs[at+1:]...), " ")
}

// refStyle is the style of a Reference: grey, dashed.
func refStyle() style { return style{color: grey, dash: 1, width: baselineWidth} }

// StyleFor returns the line style Save gives a line named name, so that
// figures drawn with gonum directly (bar charts) use the same colours:
// the papers' algorithms are black, solid and thick; each known baseline
// has a fixed colour and dash (Okabe–Ito palette); variants ("OCORP+(a=10)")
// take the colour of the name they start with (a hashed one for variants
// of the black algorithms) and a dash of their own; other names get a
// colour and dash from a hash of the name. Within one
// plot Save may change the dash (then the colour) of a later line whose
// style an earlier line already has.
func StyleFor(name string) draw.LineStyle { return styleOf(name).line() }
