"""The bundled domains; each subpackage exposes a `facade.kit.Domain` as `domain`."""
