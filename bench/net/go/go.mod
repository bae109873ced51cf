module itoecho

go 1.21
