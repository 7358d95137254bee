package evaluate

import (
	"math"
	"testing"

	"creator/internal/requirement"
)

func req(quotes ...string) requirement.Record {
	r := requirement.Record{}
	for _, q := range quotes {
		r.Citations = append(r.Citations, requirement.Citation{Quote: q})
	}
	return r
}

func TestEvaluate(t *testing.T) {
	t.Parallel()
	gold := []Gold{
		{Quote: "A QUIC endpoint MUST NOT reuse a stream ID within a connection.", Level: "MUST"},
		{Quote: "Endpoints MUST be able to deliver stream data to an application as an ordered byte stream.", Level: "MUST"},
		{Quote: "Implementations MAY choose to offer the ability to deliver data out of order.", Level: "MAY"},
	}
	reqs := []requirement.Record{
		req("A QUIC endpoint MUST NOT reuse a stream ID within a connection."),                                 // exact
		req("Endpoints MUST be able to deliver stream data to an application as an ordered byte stream and …"), // near
		req("This sentence is about something else entirely."),                                                 // extra
	}
	res := Evaluate(reqs, gold)
	if res.MatchedGold != 2 || res.MatchedRequirements != 2 || len(res.Missed) != 1 || res.Missed[0].Level != "MAY" {
		t.Fatalf("result = %+v", res)
	}
	if math.Abs(res.Recall-2.0/3) > 1e-9 || math.Abs(res.Precision-2.0/3) > 1e-9 || math.Abs(res.F1-2.0/3) > 1e-9 {
		t.Fatalf("figures = %v %v %v", res.Recall, res.Precision, res.F1)
	}
	if lv := res.ByLevel["MUST"]; lv.Gold != 2 || lv.Matched != 2 || lv.Recall != 1 {
		t.Fatalf("MUST level = %+v", lv)
	}
	if got := res.Levels(); len(got) != 2 || got[0] != "MUST" || got[1] != "MAY" {
		t.Fatalf("levels = %v", got)
	}
	if _, err := ParseGold([]byte(`[{"quote":""}]`)); err == nil {
		t.Fatal("empty quote accepted")
	}
}
