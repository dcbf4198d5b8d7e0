package conformance

func ogaGangFamily() suite  { return &family[int, int, int, int, int]{} }
func esdpGangFamily() suite { return &family[int, int, int, int, int]{} }
