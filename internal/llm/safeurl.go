package llm

import "net/url"

// SafeURL drops credentials and query parameters from a URL before it is
// shown or recorded: they may hold secrets.
func SafeURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(invalid URL)"
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}
