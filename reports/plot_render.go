package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"

	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// pngDPI is the PNG resolution: 1.5× a 96-dpi screen, so the images the
// HTML report embeds (shown at 96 dpi) stay sharp on high-density displays
// while rendering stays cheap.
const pngDPI = 144

// render draws f as PNG and SVG. gonum/plot panics on some degenerate
// inputs; that becomes an error rather than a crashed sweep.
func (f *figure) render() (pngBytes, svgBytes []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			pngBytes, svgBytes, err = nil, nil, fmt.Errorf("rendering failed: %v", r)
		}
	}()
	img := vgimg.NewWith(vgimg.UseWH(f.width, f.height), vgimg.UseDPI(pngDPI), vgimg.UseBackgroundColor(color.White))
	f.draw(draw.New(img))
	var pb bytes.Buffer
	// BestSpeed: the plots are flat colour, so the size cost is small and
	// encoding is several times faster than the default level.
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&pb, img.Image()); err != nil {
		return nil, nil, err
	}
	svg := vgsvg.New(f.width, f.height)
	dc := draw.New(svg)
	dc.SetColor(color.White) // SVG is transparent by default
	dc.Fill(dc.Rectangle.Path())
	f.draw(dc)
	var sb bytes.Buffer
	if _, err := svg.WriteTo(&sb); err != nil {
		return nil, nil, err
	}
	return pb.Bytes(), sb.Bytes(), nil
}
