package storage

import (
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"
)

// encodeUUIDs teaches a connection's type map to encode google/uuid's
// UUID as what it is, 16 bytes. Left to itself pgx encodes one through
// its driver.Valuer: the UUID is formatted as a string, the string fails
// to encode as a binary uuid (building an error on the way), and the
// string is then parsed back, for every parameter of every query: 8% of
// web's CPU per read in the performance suite (bench/README.md).
func encodeUUIDs(m *pgtype.Map) {
	m.TryWrapEncodePlanFuncs = append([]pgtype.TryWrapEncodePlanFunc{wrapUUID}, m.TryWrapEncodePlanFuncs...)
}

// wrapUUID hands a uuid.UUID on to pgtype's own uuid encoding.
func wrapUUID(value any) (pgtype.WrappedEncodePlanNextSetter, any, bool) {
	if u, ok := value.(uuid.UUID); ok {
		return &uuidPlan{}, pgtype.UUID{Bytes: u, Valid: true}, true
	}
	return nil, nil, false
}

// uuidPlan encodes a uuid.UUID with the plan pgtype made for pgtype.UUID.
type uuidPlan struct{ next pgtype.EncodePlan }

func (p *uuidPlan) SetNext(next pgtype.EncodePlan) { p.next = next }

func (p *uuidPlan) Encode(value any, buf []byte) ([]byte, error) {
	return p.next.Encode(pgtype.UUID{Bytes: value.(uuid.UUID), Valid: true}, buf)
}
