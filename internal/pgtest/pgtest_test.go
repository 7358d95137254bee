package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestStart(t *testing.T) {
	s := Start(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, s.URL(s.Password))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT 1+1").Scan(&n); err != nil || n != 2 {
		t.Fatalf("SELECT 1+1 = %d, %v", n, err)
	}
	if _, err := pgx.Connect(ctx, s.URL("wrong")); err == nil {
		t.Fatal("a wrong password connected")
	}
}
