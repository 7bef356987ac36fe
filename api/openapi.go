package api

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// openapiYAML is the API's OpenAPI 3.1 document, written by hand and
// checked against real answers by TestOpenAPIResponses.
//
//go:embed openapi.yaml
var openapiYAML []byte

// OpenAPI returns the OpenAPI document as JSON, its keys in the order the
// YAML source has them. It fails only if the embedded document is broken.
func OpenAPI() ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(openapiYAML, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	var buf bytes.Buffer
	if err := writeNodeJSON(&buf, &doc); err != nil {
		return nil, fmt.Errorf("openapi.yaml: %w", err)
	}
	return buf.Bytes(), nil
}

// writeNodeJSON writes a YAML node as JSON, keeping the order of keys.
func writeNodeJSON(buf *bytes.Buffer, n *yaml.Node) error {
	switch n.Kind {
	case yaml.DocumentNode:
		return writeNodeJSON(buf, n.Content[0])
	case yaml.AliasNode:
		return writeNodeJSON(buf, n.Alias)
	case yaml.MappingNode:
		return writeJSONList(buf, '{', '}', n.Content, 2, func(i int) error {
			k, _ := json.Marshal(n.Content[i].Value)
			buf.Write(k)
			buf.WriteByte(':')
			return writeNodeJSON(buf, n.Content[i+1])
		})
	case yaml.SequenceNode:
		return writeJSONList(buf, '[', ']', n.Content, 1, func(i int) error { return writeNodeJSON(buf, n.Content[i]) })
	}
	var v any
	if err := n.Decode(&v); err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("line %d: %w", n.Line, err)
	}
	buf.Write(b)
	return nil
}

// writeJSONList writes open, each item (every step-th node), close.
func writeJSONList(buf *bytes.Buffer, open, close byte, nodes []*yaml.Node, step int, item func(int) error) error {
	buf.WriteByte(open)
	for i := 0; i < len(nodes); i += step {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := item(i); err != nil {
			return err
		}
	}
	buf.WriteByte(close)
	return nil
}
