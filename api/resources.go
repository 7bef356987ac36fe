package api

import (
	"encoding/json"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/uuid"

	"github.com/kisa-dev/kisa"
	"github.com/kisa-dev/kisa/storage"
)

// timestampLayout is spec's ISO 8601 UTC with milliseconds.
const timestampLayout = "2006-01-02T15:04:05.000Z"

func stamp(t time.Time) string { return t.UTC().Format(timestampLayout) }

// object returns metadata as a JSON object, `{}` when empty.
func object(m json.RawMessage) json.RawMessage {
	if len(m) == 0 || string(m) == "null" {
		return json.RawMessage(`{}`)
	}
	return m
}

// clusterJSON is a Cluster as spec 2.1 shows it.
type clusterJSON struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Type      string          `json:"type"`
	Metadata  json.RawMessage `json:"metadata"`
	CreatedAt string          `json:"created_at"`
	UpdatedAt string          `json:"updated_at"`
}

// integrationJSON is an Integration as spec 2.2 shows it (no updated_at).
type integrationJSON struct {
	ID        string          `json:"id"`
	Provider  string          `json:"provider"`
	Metadata  json.RawMessage `json:"metadata"`
	CreatedAt string          `json:"created_at"`
}

// secretJSON is a Secret as spec 2.3 shows it, its value always masked.
type secretJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Value     string `json:"value"`
	CreatedAt string `json:"created_at"`
	UpdatedAt string `json:"updated_at"`
}

// MaskedValue is the only value a secret ever shows.
const MaskedValue = "********"

func (s *Server) listClusters(c *gin.Context) {
	list, err := s.opts.DB.ListClusters(c.Request.Context(), mustPrincipal(c).AccountID)
	if err != nil {
		s.writeError(c, err)
		return
	}
	out := make([]clusterJSON, 0, len(list))
	for _, cl := range list {
		out = append(out, clusterJSON{cl.ID.String(), cl.Name, cl.Type, object(cl.Metadata), stamp(cl.CreatedAt), stamp(cl.UpdatedAt)})
	}
	writeData(c, out)
}

func toIntegration(in storage.Integration) integrationJSON {
	return integrationJSON{in.ID.String(), in.Provider, object(in.Metadata), stamp(in.CreatedAt)}
}

func (s *Server) listIntegrations(c *gin.Context) {
	list, err := s.opts.DB.ListIntegrations(c.Request.Context(), mustPrincipal(c).AccountID)
	if err != nil {
		s.writeError(c, err)
		return
	}
	out := make([]integrationJSON, 0, len(list))
	for _, in := range list {
		out = append(out, toIntegration(in))
	}
	writeData(c, out)
}

func (s *Server) getIntegration(c *gin.Context) {
	id, ok := s.pathID(c, kisa.PartIntegration)
	if !ok {
		return
	}
	in, err := s.opts.DB.Integration(c.Request.Context(), mustPrincipal(c).AccountID, id)
	if err != nil {
		s.writeError(c, err)
		return
	}
	writeData(c, toIntegration(in))
}

func (s *Server) getSecret(c *gin.Context) {
	id, ok := s.pathID(c, kisa.PartSecret)
	if !ok {
		return
	}
	sec, err := s.opts.Secrets.Get(c.Request.Context(), mustPrincipal(c).AccountID, id)
	if err != nil {
		s.writeError(c, err)
		return
	}
	writeData(c, secretJSON{sec.ID.String(), sec.Name, MaskedValue, stamp(sec.CreatedAt), stamp(sec.UpdatedAt)})
}

// pathID reads the :id parameter. An id that is not a UUID gets the same
// 404 as one that does not exist (the NotFound failure of what), so
// nothing tells the two apart.
func (s *Server) pathID(c *gin.Context, what kisa.Part) (uuid.UUID, bool) {
	id, err := uuid.Parse(c.Param("id"))
	if err != nil {
		s.writeError(c, kisa.Fail(kisa.NotFound, what, nil))
		return uuid.Nil, false
	}
	return id, true
}
