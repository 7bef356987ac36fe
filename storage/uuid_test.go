package storage_test

import (
	"context"
	"database/sql"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/kisa-dev/kisa/testenv"
)

// TestUUIDParams: the pool's connections take uuid.UUID parameters as 16
// bytes, without pgx's detour through the driver.Valuer (format, fail to
// encode the string, parse it back), and the values still arrive intact,
// NULL from a nil pointer included.
func TestUUIDParams(t *testing.T) {
	db := testenv.Postgres(t)
	ctx := context.Background()
	id := uuid.New()
	var got uuid.UUID
	if err := db.SQL().QueryRowContext(ctx, `SELECT $1::uuid`, id).Scan(&got); err != nil || got != id {
		t.Fatalf("SELECT $1::uuid with %s = %s, %v", id, got, err)
	}
	var null sql.NullString
	if err := db.SQL().QueryRowContext(ctx, `SELECT $1::uuid::text`, (*uuid.UUID)(nil)).Scan(&null); err != nil || null.Valid {
		t.Fatalf("a nil *uuid.UUID = %v, %v; want NULL", null, err)
	}

	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	err = conn.Raw(func(dc any) error {
		pool := encodeAllocs(t, dc.(*stdlib.Conn).Conn().TypeMap(), id)
		plain := encodeAllocs(t, pgtype.NewMap(), id)
		if pool > 1 || plain <= pool {
			t.Errorf("encoding a uuid.UUID allocates %v times on a pool connection, %v with pgx's own map; want at most 1, and fewer",
				pool, plain)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// encodeAllocs is how many allocations m makes to encode id as a binary
// uuid parameter, after checking that it encodes its 16 bytes.
func encodeAllocs(tb testing.TB, m *pgtype.Map, id uuid.UUID) float64 {
	tb.Helper()
	plan := m.PlanEncode(pgtype.UUIDOID, pgtype.BinaryFormatCode, id)
	if plan == nil {
		tb.Fatal("no plan to encode a uuid.UUID")
	}
	buf := make([]byte, 0, 64)
	out, err := plan.Encode(id, buf)
	if err != nil || string(out) != string(id[:]) {
		tb.Fatalf("encoded %x, %v; want %x", out, err, id[:])
	}
	var v any = id // boxed once, outside the count
	return testing.AllocsPerRun(100, func() { _, _ = plan.Encode(v, buf) })
}
