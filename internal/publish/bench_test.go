package publish

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"creator/internal/pgtest"
	"creator/internal/requirement"
)

// benchJobs numbers the jobs of the benchmarks, run more than once.
var benchJobs atomic.Int64

// BenchmarkPublish publishes ~900 requirements, as a large job has, the
// first time (all inserted) and then with every tenth changed (issue 30,
// point 12): go test ./internal/publish -run '^$' -bench Publish
func BenchmarkPublish(b *testing.B) {
	db := pgtest.Start(b)
	url := db.URL(db.Password)
	recs := make([]requirement.Record, 902)
	for i := range recs {
		recs[i] = record(fmt.Sprintf("REQ-%04d", i+1), fmt.Sprintf("Records of kind %d shall be kept for ten years.", i))
		recs[i].SourceID = fmt.Sprintf("V-%d", 200000+i)
		recs[i].Attributes = map[string]string{"severity": "medium"}
	}
	b.Run("rows", func(b *testing.B) { benchmarkWrite(b, url, recs) })
	b.Run("whole", func(b *testing.B) { benchmarkPublish(b, url, recs) })
}

// benchmarkWrite times the rows alone, on an open connection with the
// table migrated: the first publish of the job, all 902 inserted.
func benchmarkWrite(b *testing.B, url string, recs []requirement.Record) {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	for n := 0; n < b.N; n++ {
		b.StopTimer()
		tx, err := conn.Begin(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := migrate(ctx, tx, DefaultSchema); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		var res Result
		if err := write(ctx, tx, Options{Schema: DefaultSchema, JobID: fmt.Sprintf("rows-%d", benchJobs.Add(1)), Records: recs, Now: now}, &res); err != nil || res.Inserted != len(recs) {
			b.Fatalf("%+v, %v", res, err)
		}
		if err := tx.Commit(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// benchmarkPublish times whole publishes (connect, migrate, write,
// commit) of a new job, then of it with every tenth requirement changed
// and two withdrawn.
func benchmarkPublish(b *testing.B, url string, recs []requirement.Record) {
	ctx := context.Background()
	for n := 0; n < b.N; n++ {
		job := fmt.Sprintf("job-%d", benchJobs.Add(1))
		res, err := Publish(ctx, Options{URL: url, JobID: job, Records: recs, Now: now})
		if err != nil || res.Inserted != len(recs) {
			b.Fatalf("first publish: %+v, %v", res, err)
		}
		changed := append([]requirement.Record(nil), recs...)
		for i := 0; i < len(changed); i += 10 {
			changed[i].Text += " Changed."
		}
		res, err = Publish(ctx, Options{URL: url, JobID: job, Records: changed[:len(changed)-2], Now: now})
		if err != nil || res.Updated != 90 || res.Removed != 2 || res.Unchanged != 810 {
			b.Fatalf("second publish: %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(2*b.N), "ms/publish")
}
