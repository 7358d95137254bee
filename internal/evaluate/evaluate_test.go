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

func TestEvaluateStrict(t *testing.T) {
	t.Parallel()
	gold := []Gold{{ID: "MQTT-3.1.0-1", Quote: "The first Packet sent from the Client to the Server MUST be a CONNECT Packet.", Level: "MUST"}}
	long := "The first Packet sent from the Client to the Server MUST be a CONNECT Packet. " +
		"The Client MUST send the first CONNECT Packet to the Server, the first Packet from the Client to the Server."
	reqs := []requirement.Record{req(long)}
	if res := Evaluate(reqs, gold); res.MatchedGold != 1 {
		t.Fatalf("lenient: %+v", res)
	}
	// 15 gold words: at most 1.5 × 15 + 8 = 30.5 words; the long quote has 35, nearly all of them the gold's words.
	if res := EvaluateWith(reqs, gold, Options{Strict: true}); res.MatchedGold != 0 || res.Precision != 0 || !res.Strict {
		t.Fatalf("strict matched a quote of a whole paragraph: %+v", res)
	}
	exact := req(gold[0].Quote)
	exact.SourceID = "MQTT-3.1.0-1"
	res := EvaluateWith([]requirement.Record{exact}, gold, Options{Strict: true})
	if res.MatchedGold != 1 || res.SourceIDs != (SourceIDs{Labelled: 1, Right: 1, Share: 1}) {
		t.Fatalf("strict exact: %+v", res)
	}
	exact.SourceID = "MQTT-3.1.0-2"
	if res := EvaluateWith([]requirement.Record{exact}, gold, Options{Strict: true}); res.SourceIDs.Right != 0 || res.SourceIDs.Labelled != 1 {
		t.Fatalf("another id counted as right: %+v", res.SourceIDs)
	}
}

func TestSameID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		gold, source string
		want         bool
	}{
		{"MQTT-3.1.0-1", "MQTT-3.1.0-1", true},
		{"MQTT-3.1.2.7", "MQTT-3.1.2-7", true}, // a typo of the gold list's source
		{"V1.2.3", "1.2.3", true},              // the gold's notation of the document's id
		{"ms.aad.1.1v1", "MS.AAD.1.1v1", true},
		{"V1.2.3", "1.2.4", false},
		{"AC-2(1)", "AC-2", false},
		{"AC-2", "2", false}, // the prefix is no notation: "AC-" has a separator
		{"X1.2", "", false},
		{"", "1.2", false},
	} {
		if got := SameID(c.gold, c.source); got != c.want {
			t.Errorf("SameID(%q, %q) = %v", c.gold, c.source, got)
		}
	}
}
