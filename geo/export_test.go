package geo

// Zones returns every time zone TimeZone can return, for the tests.
func Zones() []string {
	out := []string{"UTC"}
	for _, c := range countries {
		out = append(out, c.zone)
	}
	for _, m := range []map[string]string{usStateZones, caProvinceZones, auStateZones} {
		for _, z := range m {
			out = append(out, z)
		}
	}
	return out
}
